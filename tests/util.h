/* Test helpers: a deterministic PRNG and builders for the orders the suites draw from (random
 * DAGs, forests, in-forests, chains, antichains, complete binary trees, double trees). */
#ifndef HITFAM_TESTS_UTIL_H
#define HITFAM_TESTS_UTIL_H

#include <stdbool.h>
#include <stdint.h>

#include "hitfam/hitfam.h"

/* splitmix64 */
uint64_t tu_next(uint64_t *state);
/* uniform in [0, bound) (bound > 0) */
uint32_t tu_below(uint64_t *state, uint32_t bound);
/* A uniformly random permutation of 0..n-1 (malloc'd, at least one entry; the caller frees). */
uint32_t *tu_random_perm(uint32_t n, uint64_t *rng);
/* hf_gen_options for method m at d with a focus set (NULL, 0: none). */
hf_gen_options tu_gen_options(unsigned d, hf_method m, const uint32_t *focus, size_t focus_count);

/* Build a poset with events named by `name_fmt` (printf with the id, e.g. "e%u") and the given
 * pairs (before, after). Aborts the test (via Criterion) on failure. */
hf_poset *tu_poset(uint32_t n, const uint32_t (*edges)[2], size_t m);
/* Same, but returns NULL with the status in *st (for expected failures). */
hf_poset *tu_poset_try(uint32_t n, const uint32_t (*edges)[2], size_t m, hf_status *st,
                       hf_error *err);
/* The order of parent links (parent[v] < v, HF_NO_EVENT for a root): an edge parent -> child,
 * reversed (child -> parent, an in-forest) if `in`. */
hf_poset *tu_parents_poset(const uint32_t *parent, uint32_t n, bool in);

/* Every order a test builds through tu_poset (and so every builder below) is registered with
 * the edges the test chose, so that the oracle (oracle.h) computes its closure from those edges
 * and never from the library's own view of the order. An order made another way (read from DOT,
 * built with the builder directly) is registered by the test with tu_register_edges before an
 * oracle sees it. hf_poset_free is redirected to tu_poset_free, which drops the registration
 * (so that a later order at the same address is not mistaken for this one). */
void tu_register_edges(const hf_poset *p, const uint32_t (*edges)[2], size_t m);
/* The registered edges of p (a test failure if p is not registered); count in *m. */
const uint32_t (*tu_registered_edges(const hf_poset *p, size_t *m))[2];
void tu_poset_free(hf_poset *p);
/* The same order (names and registered edges) built again through the context @p ctx, and
 * registered. */
hf_poset *tu_poset_copy(const hf_poset *q, hf_ctx *ctx);
#define hf_poset_free(p) tu_poset_free(p)

/* Random DAG: for i < j in a random permutation, an edge with probability num/den. */
hf_poset *tu_random_dag(uint32_t n, uint32_t num, uint32_t den, uint64_t *rng);
/* Random forest: each event after the first `roots` picks a parent among earlier ones
 * (random recursive forest); ids are shuffled. */
hf_poset *tu_random_forest(uint32_t n, uint32_t roots, uint64_t *rng);
/* The same forest with every edge reversed (an in-forest). */
hf_poset *tu_random_inforest(uint32_t n, uint32_t roots, uint64_t *rng);
hf_poset *tu_chain(uint32_t n);
hf_poset *tu_antichain(uint32_t n);
/* Complete binary tree T_h: strings of length <= h, 2^(h+1) - 1 events, root id 0, children of
 * id i are 2i+1 and 2i+2 (heap order). */
hf_poset *tu_complete_binary(uint32_t h);
/* Double tree D_k of docs/math.md (section 5.1): 3 * 2^k - 2 events. */
hf_poset *tu_double_tree(uint32_t k);
/* Every level sequence of n >= 1 nodes in preorder: lev[0] = 0 and lev[i] from 1 (0 for a
 * forest, whose roots are at level 0) to lev[i-1] + 1, that is every plane tree (Catalan(n-1)
 * of them) or plane forest (Catalan(n)); `visit` gets each one. Returns how many. n <= 32. */
size_t tu_each_level_sequence(uint32_t n, bool forest,
                              void (*visit)(const uint32_t *lev, uint32_t n, void *user),
                              void *user);
/* A tree from a canonical level sequence ("0122"). */
hf_poset *tu_tree_from_levels(const char *levels);

/* Each tree of tests/data/NAME (lines `levels=L ... opt=K`, `#` comments; HITFAM_SOURCE_ROOT
 * locates the file) as a poset from its level sequence, with its optimum; visit frees nothing,
 * the caller's poset is freed after the visit. Returns the number of trees visited. */
unsigned tu_each_tree_optimum(const char *name,
                              void (*visit)(hf_poset *p, const char *levels, unsigned opt,
                                            void *user),
                              void *user);

/* Families and their formats (the io_family and formats suites). */
/* An order of the given names and (before, after) pairs, built through `ctx` (may be NULL), its
 * edges registered for the oracles. */
hf_poset *tu_named_poset(hf_ctx *ctx, const char *const *names, uint32_t n,
                         const uint32_t (*edges)[2], size_t m);
/* A name of 0 to 4 pieces that need quoting in some format (blanks, quotes, backslashes, line
 * breaks, keywords, UTF-8, control bytes), into buf (at least 128 bytes). */
void tu_awkward_name(char *buf, uint64_t *rng);
/* n events with distinct awkward names and random edges i -> j (i < j), registered. */
hf_poset *tu_random_awkward_poset(hf_ctx *ctx, uint32_t n, uint64_t *rng);
/* m random linear extensions of p (an order whose edges are registered). */
hf_family *tu_random_family(const hf_poset *p, size_t m, uint64_t *rng);
/* hf_family_read_mem from an exact-size heap copy of data, so that ASan catches a read past the
 * end. */
hf_status tu_read_len(const hf_poset *p, const char *data, size_t len, hf_family **f,
                      hf_family_header *h, hf_error *err);
/* The family as written in `format` (malloc'd; its length in *len if len is not NULL). */
char *tu_write_family(const hf_poset *p, const hf_family *f, hf_format format,
                      const hf_family_header *h, size_t *len);
/* The two families have the same events and the same schedules in the same order. */
void tu_assert_family_eq(const hf_family *a, const hf_family *b);

/* A "chaos" allocator for out-of-memory tests: after `left` successful allocations the next
 * malloc/realloc fails (left < 0: never). With `once` only that call fails (left becomes -1);
 * without it every later call fails too, until the test resets `left`. `calls` counts every
 * malloc/realloc call, failed or not, and `live` the blocks allocated and not yet freed, so a
 * test can tell whether an operation allocated and assert that a failure leaked nothing. The
 * fields are the test's to set and read between calls. */
typedef struct tu_chaos {
    long left;
    bool once;
    long calls;
    long live;
} tu_chaos;
/* An allocator drawing on `c` (which must outlive every context made from it). */
hf_allocator tu_chaos_allocator(tu_chaos *c);
/* A context using tu_chaos_allocator(c); aborts the test if it cannot be made. */
hf_ctx *tu_chaos_ctx(tu_chaos *c);

/* Leak check after every test of a suite: Criterion's workers end without running
 * LeakSanitizer, so each suite declares TU_SUITE(name) and a leak aborts the worker, which fails
 * the test binary's run (under --tap the report itself is not shown: run the binary without
 * --tap to read it). A no-op in builds without LeakSanitizer. */
void tu_leak_check(void);
#define TU_SUITE(name) TestSuite(name, .fini = tu_leak_check)

#endif
