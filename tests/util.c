/* Test helpers: see util.h. */
#include "util.h"
#include "oracle.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern int __lsan_do_recoverable_leak_check(void) __attribute__((weak));

void tu_leak_check(void)
{
    if (__lsan_do_recoverable_leak_check && __lsan_do_recoverable_leak_check())
        abort();
}

uint64_t tu_next(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

uint32_t tu_below(uint64_t *s, uint32_t bound) { return (uint32_t)(tu_next(s) % bound); }

/* The registry of test-built orders and their edges (one process per test: no locking). */
typedef struct tu_reg {
    const hf_poset *p;
    size_t m;
    uint32_t (*edges)[2];
} tu_reg;
static tu_reg *regs;
static size_t reg_count, reg_cap;

static tu_reg *reg_find(const hf_poset *p)
{
    for (size_t i = 0; i < reg_count; i++)
        if (regs[i].p == p)
            return &regs[i];
    return NULL;
}

void tu_register_edges(const hf_poset *p, const uint32_t (*edges)[2], size_t m)
{
    cr_assert_not_null(p);
    tu_reg *r = reg_find(p);
    if (!r) {
        if (reg_count == reg_cap) {
            reg_cap = reg_cap ? 2 * reg_cap : 64;
            regs = realloc(regs, reg_cap * sizeof *regs);
            cr_assert_not_null(regs);
        }
        r = &regs[reg_count++];
        r->p = p;
    } else {
        free(r->edges);
    }
    r->m = m;
    r->edges = malloc((m ? m : 1) * sizeof *r->edges);
    cr_assert_not_null(r->edges);
    if (m)
        memcpy(r->edges, edges, m * sizeof *edges);
}

const uint32_t (*tu_registered_edges(const hf_poset *p, size_t *m))[2]
{
    tu_reg *r = reg_find(p);
    cr_assert_not_null(r, "the oracle needs the edges the test chose: build the order with "
                          "tu_poset (util.h) or register it with tu_register_edges");
    *m = r->m;
    return (const uint32_t(*)[2])r->edges;
}

void tu_poset_free(hf_poset *p)
{
    tu_reg *r = p ? reg_find(p) : NULL;
    if (r) {
        free(r->edges);
        *r = regs[--reg_count];
        if (reg_count == 0) {
            free(regs);
            regs = NULL;
            reg_cap = 0;
        }
    }
    (hf_poset_free)(p);
}

hf_poset *tu_poset_copy(const hf_poset *q, hf_ctx *ctx)
{
    size_t m;
    const uint32_t(*e)[2] = tu_registered_edges(q, &m);
    hf_poset_builder *b = NULL;
    cr_assert_eq(hf_poset_builder_new(ctx, &b), HF_OK);
    uint32_t n = hf_poset_size(q);
    for (uint32_t v = 0; v < n; v++)
        cr_assert_eq(hf_poset_builder_add_event(b, hf_poset_name(q, v), NULL), HF_OK);
    for (size_t i = 0; i < m; i++)
        cr_assert_eq(hf_poset_builder_add_order(b, e[i][0], e[i][1]), HF_OK);
    hf_poset *p = NULL;
    hf_error err;
    cr_assert_eq(hf_poset_builder_finish(b, &p, &err), HF_OK, "%s", err.text);
    hf_poset_builder_free(b);
    tu_register_edges(p, e, m);
    return p;
}

hf_poset *tu_poset_try(uint32_t n, const uint32_t (*edges)[2], size_t m, hf_status *st,
                       hf_error *err)
{
    hf_poset_builder *b = NULL;
    hf_poset *p = NULL;
    *st = hf_poset_builder_new(NULL, &b);
    char name[32];
    for (uint32_t i = 0; i < n && !*st; i++) {
        snprintf(name, sizeof name, "e%u", (unsigned)i);
        *st = hf_poset_builder_add_event(b, name, NULL);
    }
    for (size_t i = 0; i < m && !*st; i++)
        *st = hf_poset_builder_add_order(b, edges[i][0], edges[i][1]);
    if (!*st)
        *st = hf_poset_builder_finish(b, &p, err);
    hf_poset_builder_free(b);
    if (p)
        tu_register_edges(p, edges, m);
    return p;
}

hf_poset *tu_poset(uint32_t n, const uint32_t (*edges)[2], size_t m)
{
    hf_status st;
    hf_error err;
    hf_poset *p = tu_poset_try(n, edges, m, &st, &err);
    cr_assert(p != NULL, "building a test poset failed: %s (%s)", hf_strerror(st), err.text);
    return p;
}

uint32_t *tu_random_perm(uint32_t n, uint64_t *rng)
{
    uint32_t *perm = malloc((n ? n : 1) * sizeof *perm);
    for (uint32_t i = 0; i < n; i++)
        perm[i] = i;
    for (uint32_t i = n; i > 1; i--) {
        uint32_t j = tu_below(rng, i);
        uint32_t t = perm[i - 1];
        perm[i - 1] = perm[j];
        perm[j] = t;
    }
    return perm;
}

hf_gen_options tu_gen_options(unsigned d, hf_method m, const uint32_t *focus, size_t focus_count)
{
    hf_gen_options opt;
    hf_gen_options_init(&opt);
    opt.d = d;
    opt.method = m;
    opt.focus = focus;
    opt.focus_count = focus_count;
    return opt;
}

hf_poset *tu_random_dag(uint32_t n, uint32_t num, uint32_t den, uint64_t *rng)
{
    uint32_t *perm = tu_random_perm(n, rng);
    size_t cap = 16, m = 0;
    uint32_t(*e)[2] = malloc(cap * sizeof *e);
    for (uint32_t i = 0; i < n; i++)
        for (uint32_t j = i + 1; j < n; j++)
            if (tu_below(rng, den) < num) {
                if (m == cap)
                    e = realloc(e, (cap *= 2) * sizeof *e);
                e[m][0] = perm[i];
                e[m][1] = perm[j];
                m++;
            }
    hf_poset *p = tu_poset(n, (const uint32_t(*)[2])e, m);
    free(e);
    free(perm);
    return p;
}

static hf_poset *random_forest(uint32_t n, uint32_t roots, uint64_t *rng, int reverse)
{
    uint32_t *perm = tu_random_perm(n, rng);
    uint32_t(*e)[2] = malloc((n ? n : 1) * sizeof *e);
    size_t m = 0;
    if (roots == 0)
        roots = 1;
    for (uint32_t i = roots; i < n; i++) {
        uint32_t parent = tu_below(rng, i);
        e[m][reverse] = perm[parent];
        e[m][!reverse] = perm[i];
        m++;
    }
    hf_poset *p = tu_poset(n, (const uint32_t(*)[2])e, m);
    free(e);
    free(perm);
    return p;
}

hf_poset *tu_random_forest(uint32_t n, uint32_t roots, uint64_t *rng)
{
    return random_forest(n, roots, rng, 0);
}

hf_poset *tu_random_inforest(uint32_t n, uint32_t roots, uint64_t *rng)
{
    return random_forest(n, roots, rng, 1);
}

hf_poset *tu_chain(uint32_t n)
{
    uint32_t(*e)[2] = malloc((n ? n : 1) * sizeof *e);
    for (uint32_t i = 0; i + 1 < n; i++) {
        e[i][0] = i;
        e[i][1] = i + 1;
    }
    hf_poset *p = tu_poset(n, (const uint32_t(*)[2])e, n ? n - 1 : 0);
    free(e);
    return p;
}

hf_poset *tu_antichain(uint32_t n) { return tu_poset(n, NULL, 0); }

hf_poset *tu_complete_binary(uint32_t h)
{
    uint32_t n = (1u << (h + 1)) - 1;
    uint32_t(*e)[2] = malloc(n * sizeof *e);
    size_t m = 0;
    for (uint32_t i = 1; i < n; i++) {
        e[m][0] = (i - 1) / 2;
        e[m][1] = i;
        m++;
    }
    hf_poset *p = tu_poset(n, (const uint32_t(*)[2])e, m);
    free(e);
    return p;
}

hf_poset *tu_double_tree(uint32_t k)
{
    /* down nodes: heap ids 0..2^k-2 (strings shorter than k); leaves: 2^k-1..2^(k+1)-2 (heap
     * order continues); up nodes: offset by 2^(k+1)-1, same heap index as the down node. */
    uint32_t inner = (1u << k) - 1, all = (1u << (k + 1)) - 1;
    uint32_t n = all + inner;
    uint32_t(*e)[2] = malloc((2 * all + 2) * sizeof *e);
    size_t m = 0;
    for (uint32_t i = 1; i < all; i++) {
        uint32_t parent = (i - 1) / 2;
        e[m][0] = parent; /* down edge */
        e[m][1] = i;
        m++;
        e[m][0] = i < inner ? all + i : i; /* up edge: child (up copy or leaf) -> parent up */
        e[m][1] = all + parent;
        m++;
    }
    hf_poset *p = tu_poset(k == 0 ? 1 : n, (const uint32_t(*)[2])e, k == 0 ? 0 : m);
    free(e);
    return p;
}

hf_poset *tu_tree_from_levels(const char *levels)
{
    uint32_t n = (uint32_t)strlen(levels);
    uint32_t(*e)[2] = malloc((n ? n : 1) * sizeof *e);
    uint32_t stack[64];
    size_t m = 0;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t depth = (uint32_t)(levels[i] - '0');
        stack[depth] = i;
        if (depth > 0) {
            e[m][0] = stack[depth - 1];
            e[m][1] = i;
            m++;
        }
    }
    hf_poset *p = tu_poset(n, (const uint32_t(*)[2])e, m);
    free(e);
    return p;
}

/* Whether the next allocation fails; counts the call. */
static bool chaos_fails(tu_chaos *c)
{
    c->calls++;
    if (c->left < 0)
        return false;
    if (c->left > 0) {
        c->left--;
        return false;
    }
    if (c->once)
        c->left = -1;
    return true;
}

static void *chaos_malloc(size_t size, void *user)
{
    tu_chaos *c = user;
    if (chaos_fails(c))
        return NULL;
    void *p = malloc(size);
    c->live += p != NULL;
    return p;
}

static void *chaos_realloc(void *ptr, size_t size, void *user)
{
    tu_chaos *c = user;
    if (chaos_fails(c))
        return NULL;
    void *p = realloc(ptr, size);
    c->live += ptr == NULL && p != NULL;
    return p;
}

static void chaos_free(void *ptr, void *user)
{
    tu_chaos *c = user;
    c->live -= ptr != NULL;
    free(ptr);
}

hf_allocator tu_chaos_allocator(tu_chaos *c)
{
    return (hf_allocator){chaos_malloc, chaos_realloc, chaos_free, c};
}

hf_ctx *tu_chaos_ctx(tu_chaos *c)
{
    hf_allocator a = tu_chaos_allocator(c);
    hf_ctx *ctx = NULL;
    cr_assert_eq(hf_ctx_new(&a, NULL, NULL, &ctx), HF_OK);
    return ctx;
}

static size_t level_rec(uint32_t *lev, uint32_t i, uint32_t n, bool forest,
                        void (*visit)(const uint32_t *, uint32_t, void *), void *user)
{
    if (i == n) {
        visit(lev, n, user);
        return 1;
    }
    size_t count = 0;
    for (uint32_t l = forest ? 0 : 1; l <= lev[i - 1] + 1; l++) {
        lev[i] = l;
        count += level_rec(lev, i + 1, n, forest, visit, user);
    }
    return count;
}

size_t tu_each_level_sequence(uint32_t n, bool forest,
                              void (*visit)(const uint32_t *lev, uint32_t n, void *user),
                              void *user)
{
    uint32_t lev[32] = {0};
    cr_assert(n >= 1 && n <= 32);
    return level_rec(lev, 1, n, forest, visit, user);
}

/* ------------------------------------------------------------------------------------------ */
/* Families and their formats                                                                 */

hf_poset *tu_named_poset(hf_ctx *ctx, const char *const *names, uint32_t n,
                         const uint32_t (*edges)[2], size_t m)
{
    hf_poset_builder *b = NULL;
    cr_assert_eq(hf_poset_builder_new(ctx, &b), HF_OK);
    for (uint32_t i = 0; i < n; i++)
        cr_assert_eq(hf_poset_builder_add_event(b, names[i], NULL), HF_OK, "name %u", i);
    for (size_t i = 0; i < m; i++)
        cr_assert_eq(hf_poset_builder_add_order(b, edges[i][0], edges[i][1]), HF_OK);
    hf_poset *p = NULL;
    hf_error err;
    cr_assert_eq(hf_poset_builder_finish(b, &p, &err), HF_OK, "%s", err.text);
    hf_poset_builder_free(b);
    tu_register_edges(p, edges, m);
    return p;
}

void tu_awkward_name(char *buf, uint64_t *rng)
{
    static const char *const pieces[] = {
        "a",  "Z",    "_",    "0",    "9",       "-",    ".",    "\xc3\xa9", " ",
        "\t", "\"",   "\\",   "\n",   "\r",      "#",    "{",    "}",        "[",
        ",",  "\x01", "\x7f", "node", "\\n",     "\\\n", " -> ", "\"\"",     "\xf0\x9f\x98\x80",
        "=",  "1.5",  "\r\n", "u",    "\\u0041", "ab",   "abc"};
    const uint32_t count = sizeof pieces / sizeof pieces[0];
    buf[0] = '\0';
    uint32_t k = tu_below(rng, 5);
    for (uint32_t i = 0; i < k; i++)
        strcat(buf, pieces[tu_below(rng, count)]);
}

hf_poset *tu_random_awkward_poset(hf_ctx *ctx, uint32_t n, uint64_t *rng)
{
    hf_poset_builder *b = NULL;
    cr_assert_eq(hf_poset_builder_new(ctx, &b), HF_OK);
    char name[128];
    for (uint32_t i = 0; i < n; i++) {
        hf_status st;
        do {
            tu_awkward_name(name, rng);
            st = hf_poset_builder_add_event(b, name, NULL);
        } while (st == HF_EDUPLICATE);
        cr_assert_eq(st, HF_OK);
    }
    uint32_t(*edges)[2] = malloc(((size_t)n * n + 1) * sizeof *edges);
    size_t m = 0;
    uint32_t density = tu_below(rng, 4);
    for (uint32_t i = 0; i < n; i++)
        for (uint32_t j = i + 1; j < n; j++)
            if (tu_below(rng, 8) < density) {
                cr_assert_eq(hf_poset_builder_add_order(b, i, j), HF_OK);
                edges[m][0] = i;
                edges[m][1] = j;
                m++;
            }
    hf_poset *p = NULL;
    cr_assert_eq(hf_poset_builder_finish(b, &p, NULL), HF_OK);
    hf_poset_builder_free(b);
    tu_register_edges(p, (const uint32_t(*)[2])edges, m);
    free(edges);
    return p;
}

hf_family *tu_random_family(const hf_poset *p, size_t m, uint64_t *rng)
{
    uint32_t n = hf_poset_size(p);
    hf_family *f = NULL;
    cr_assert_eq(hf_family_new(NULL, n, &f), HF_OK);
    uint32_t *s = malloc((n + 1) * sizeof *s);
    for (size_t k = 0; k < m; k++) {
        tu_random_extension(p, rng, s);
        cr_assert_eq(hf_family_append(f, s), HF_OK);
    }
    free(s);
    return f;
}

hf_status tu_read_len(const hf_poset *p, const char *data, size_t len, hf_family **f,
                      hf_family_header *h, hf_error *err)
{
    char *copy = malloc(len ? len : 1);
    memcpy(copy, data, len);
    hf_status st = hf_family_read_mem(p, len ? copy : NULL, len, f, h, err);
    free(copy);
    return st;
}

char *tu_write_family(const hf_poset *p, const hf_family *f, hf_format format,
                      const hf_family_header *h, size_t *len)
{
    char *buf = NULL;
    size_t size = 0;
    FILE *out = open_memstream(&buf, &size);
    cr_assert_not_null(out);
    cr_assert_eq(hf_family_write(p, f, out, format, h), HF_OK);
    cr_assert_eq(fclose(out), 0);
    if (len)
        *len = size;
    return buf;
}

void tu_assert_family_eq(const hf_family *a, const hf_family *b)
{
    cr_assert_eq(hf_family_events(a), hf_family_events(b));
    cr_assert_eq(hf_family_size(a), hf_family_size(b), "sizes %zu and %zu", hf_family_size(a),
                 hf_family_size(b));
    uint32_t n = hf_family_events(a);
    for (size_t i = 0; i < hf_family_size(a); i++)
        cr_assert(
            memcmp(hf_family_schedule(a, i), hf_family_schedule(b, i), n * sizeof(uint32_t)) == 0,
            "schedule %zu differs", i);
}

unsigned tu_each_tree_optimum(const char *name,
                              void (*visit)(hf_poset *p, const char *levels, unsigned opt,
                                            void *user),
                              void *user)
{
    const char *root = getenv("HITFAM_SOURCE_ROOT");
    cr_assert(root, "HITFAM_SOURCE_ROOT is not set");
    char path[4096];
    snprintf(path, sizeof path, "%s/tests/data/%s", root, name);
    FILE *in = fopen(path, "r");
    cr_assert(in, "cannot open %s", path);
    char line[512];
    unsigned count = 0;
    while (fgets(line, sizeof line, in)) {
        char levels[64];
        unsigned opt;
        const char *lv = strstr(line, "levels="), *op = strstr(line, "opt=");
        if (line[0] == '#' || !lv || !op)
            continue;
        cr_assert_eq(sscanf(lv, "levels=%63[0-9]", levels), 1);
        cr_assert_eq(sscanf(op, "opt=%u", &opt), 1);
        hf_poset *p = tu_tree_from_levels(levels);
        visit(p, levels, opt, user);
        hf_poset_free(p);
        count++;
    }
    fclose(in);
    return count;
}

hf_poset *tu_parents_poset(const uint32_t *parent, uint32_t n, bool in)
{
    uint32_t(*e)[2] = malloc((n + 1) * sizeof *e);
    size_t m = 0;
    for (uint32_t v = 0; v < n; v++)
        if (parent[v] != HF_NO_EVENT) {
            e[m][in] = parent[v];
            e[m][!in] = v;
            m++;
        }
    hf_poset *p = tu_poset(n, (const uint32_t(*)[2])e, m);
    free(e);
    return p;
}
