/* Brute-force oracle shared by the suites of the methods for any order: see oracle.h. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "gen.h"
#include "oracle.h"

/* ---- brute-force oracle ---- */

/* The registered edges of p as successor lists (CSR) and in-degrees. */
typedef struct edge_lists {
    uint32_t n;
    uint32_t *off, *succ, *indeg;
} edge_lists;

static edge_lists edge_lists_of(const hf_poset *p)
{
    size_t m;
    const uint32_t(*e)[2] = tu_registered_edges(p, &m);
    edge_lists l = {hf_poset_size(p), NULL, NULL, NULL};
    l.off = calloc(l.n + 2, sizeof *l.off);
    l.succ = malloc((m + 1) * sizeof *l.succ);
    l.indeg = calloc(l.n + 1, sizeof *l.indeg);
    for (size_t i = 0; i < m; i++) {
        l.off[e[i][0] + 2]++;
        l.indeg[e[i][1]]++;
    }
    for (uint32_t v = 0; v < l.n; v++)
        l.off[v + 2] += l.off[v + 1];
    for (size_t i = 0; i < m; i++)
        l.succ[l.off[e[i][0] + 1]++] = e[i][1];
    return l; /* successors of v: succ[off[v] .. off[v + 1]) */
}

static void edge_lists_free(edge_lists *l)
{
    free(l->off);
    free(l->succ);
    free(l->indeg);
}

bool *tu_closure(const hf_poset *p)
{
    /* a search from every event over the registered edges: O(n * (n + edges)) */
    edge_lists l = edge_lists_of(p);
    uint32_t n = l.n;
    bool *lt = calloc((size_t)n * n + 1, 1);
    uint32_t *stack = malloc((n + 1) * sizeof *stack);
    for (uint32_t a = 0; a < n; a++) {
        bool *row = lt + (size_t)a * n;
        uint32_t sp = 0;
        stack[sp++] = a;
        while (sp > 0) {
            uint32_t u = stack[--sp];
            for (uint32_t j = l.off[u]; j < l.off[u + 1]; j++)
                if (!row[l.succ[j]]) {
                    row[l.succ[j]] = true;
                    stack[sp++] = l.succ[j];
                }
        }
        cr_assert_not(row[a], "the registered edges have a cycle through %u", a);
    }
    free(stack);
    edge_lists_free(&l);
    return lt;
}

bool tu_respects_edges(const hf_poset *p, const uint32_t *pos)
{
    size_t m;
    const uint32_t(*e)[2] = tu_registered_edges(p, &m);
    for (size_t i = 0; i < m; i++)
        if (pos[e[i][0]] > pos[e[i][1]])
            return false;
    return true;
}

uint32_t *tu_forest_parents(const hf_poset *p, bool reversed)
{
    uint32_t n = hf_poset_size(p);
    bool *lt = tu_closure(p);
    uint32_t *above = calloc(n + 1, sizeof *above), *parent = malloc((n + 1) * sizeof *parent);
    /* above[u]: how many events are on u's side of the tree (its ancestors) */
    for (uint32_t u = 0; u < n; u++)
        for (uint32_t w = 0; w < n; w++)
            above[u] += reversed ? lt[(size_t)u * n + w] : lt[(size_t)w * n + u];
    for (uint32_t v = 0; v < n; v++) {
        parent[v] = HF_NO_EVENT;
        for (uint32_t u = 0; u < n; u++) {
            bool anc = reversed ? lt[(size_t)v * n + u] : lt[(size_t)u * n + v];
            if (anc && (parent[v] == HF_NO_EVENT || above[u] > above[parent[v]]))
                parent[v] = u;
        }
    }
    free(lt);
    free(above);
    return parent;
}

uint32_t *tu_edge_parents(const hf_poset *p, bool reversed)
{
    uint32_t n = hf_poset_size(p);
    size_t m;
    const uint32_t(*e)[2] = tu_registered_edges(p, &m);
    uint32_t *parent = malloc((n + 1) * sizeof *parent);
    memset(parent, 0xff, (n + 1) * sizeof *parent);
    for (size_t i = 0; i < m; i++) {
        uint32_t child = e[i][reversed ? 0 : 1], up = e[i][reversed ? 1 : 0];
        cr_assert(parent[child] == HF_NO_EVENT || parent[child] == up,
                  "event %u has two parents among the registered edges", child);
        parent[child] = up;
    }
    return parent;
}

void tu_random_extension(const hf_poset *p, uint64_t *rng, uint32_t *out)
{
    edge_lists l = edge_lists_of(p);
    uint32_t *avail = malloc((l.n + 1) * sizeof *avail), na = 0;
    for (uint32_t v = 0; v < l.n; v++)
        if (l.indeg[v] == 0)
            avail[na++] = v;
    for (uint32_t k = 0; k < l.n; k++) {
        cr_assert(na > 0, "the registered edges have a cycle");
        uint32_t i = tu_below(rng, na), v = avail[i];
        avail[i] = avail[--na];
        out[k] = v;
        for (uint32_t j = l.off[v]; j < l.off[v + 1]; j++)
            if (--l.indeg[l.succ[j]] == 0)
                avail[na++] = l.succ[j];
    }
    free(avail);
    edge_lists_free(&l);
}

static void all_extensions_rec(edge_lists *l, bool *placed, uint32_t *cur, uint32_t depth,
                               tu_collect *c)
{
    if (depth == l->n) {
        tu_collect_put(c, cur, l->n);
        return;
    }
    for (uint32_t v = 0; v < l->n; v++) {
        if (placed[v] || l->indeg[v])
            continue;
        placed[v] = true;
        for (uint32_t j = l->off[v]; j < l->off[v + 1]; j++)
            l->indeg[l->succ[j]]--;
        cur[depth] = v;
        all_extensions_rec(l, placed, cur, depth + 1, c);
        for (uint32_t j = l->off[v]; j < l->off[v + 1]; j++)
            l->indeg[l->succ[j]]++;
        placed[v] = false;
    }
}

tu_collect tu_all_extensions(const hf_poset *p)
{
    edge_lists l = edge_lists_of(p);
    tu_collect c = {l.n, 0, 0, NULL};
    bool *placed = calloc(l.n + 1, 1);
    uint32_t *cur = calloc(l.n + 1, sizeof *cur);
    all_extensions_rec(&l, placed, cur, 0, &c);
    free(placed);
    free(cur);
    edge_lists_free(&l);
    return c;
}

hf_status tu_collect_put(void *user, const uint32_t *s, uint32_t n)
{
    tu_collect *c = user;
    cr_assert_eq(n, c->n);
    if (c->m == c->cap) {
        c->cap = c->cap ? 2 * c->cap : 16;
        c->rows = realloc(c->rows, c->cap * (n ? n : 1) * sizeof *c->rows);
    }
    memcpy(c->rows + c->m * n, s, n * sizeof *s);
    c->m++;
    return HF_OK;
}

hf_sink tu_collect_sink(tu_collect *c) { return (hf_sink){tu_collect_put, c}; }

/* Is the d-tuple t (distinct) tu_admissible? */
bool tu_admissible(const bool *lt, uint32_t n, const uint32_t *t, unsigned d)
{
    for (unsigned i = 0; i < d; i++)
        for (unsigned j = i + 1; j < d; j++)
            if (lt[(size_t)t[j] * n + t[i]])
                return false;
    return true;
}

/* Check every row is a linear extension and (if some tuple of the focus events is not hit)
 * return false. Focus NULL: all events. rows: m schedules. Any d up to HF_MAX_D: the tuples are
 * enumerated by an odometer over n^d codes, so keep n^d to some millions. */
bool tu_oracle_hitting(const hf_poset *p, const uint32_t *rows, size_t m, unsigned d,
                       const bool *in_focus)
{
    cr_assert(d >= 1 && d <= HF_MAX_D, "the oracle takes d from 1 to %u", HF_MAX_D);
    uint32_t n = hf_poset_size(p);
    bool *lt = tu_closure(p);
    uint32_t *pos = malloc((m * n + 1) * sizeof *pos);
    for (size_t s = 0; s < m; s++) {
        bool *seen = calloc(n + 1, 1);
        for (uint32_t i = 0; i < n; i++) {
            uint32_t v = rows[s * n + i];
            cr_assert_lt(v, n);
            cr_assert_not(seen[v], "schedule %zu repeats %u", s, v);
            seen[v] = true;
            pos[s * n + v] = i;
        }
        free(seen);
        for (uint32_t a = 0; a < n; a++)
            for (uint32_t b = 0; b < n; b++)
                if (lt[(size_t)a * n + b])
                    cr_assert_lt(pos[s * n + a], pos[s * n + b], "schedule %zu breaks %u<%u", s, a,
                                 b);
    }
    uint32_t k = 0;
    for (uint32_t v = 0; v < n; v++)
        k += !in_focus || in_focus[v];
    if (d > k)
        d = k;
    bool ok = true;
    uint32_t t[HF_MAX_D];
    /* all d-tuples of distinct focus events, by an odometer */
    uint64_t total = 1;
    for (unsigned i = 0; i < d; i++)
        total *= n;
    for (uint64_t code = 0; code < total && ok; code++) {
        uint64_t c = code;
        bool good = true;
        for (unsigned i = 0; i < d; i++) {
            t[i] = (uint32_t)(c % n);
            c /= n;
            if (in_focus && !in_focus[t[i]])
                good = false;
            for (unsigned j = 0; j < i; j++)
                good = good && t[j] != t[i];
        }
        if (!good || !tu_admissible(lt, n, t, d))
            continue;
        bool hit = false;
        for (size_t s = 0; s < m && !hit; s++) {
            hit = true;
            for (unsigned i = 0; i + 1 < d; i++)
                hit = hit && pos[s * n + t[i]] < pos[s * n + t[i + 1]];
        }
        ok = hit;
    }
    if (n > 0 && m == 0)
        ok = false;
    free(pos);
    free(lt);
    return ok;
}

/* ---- orders ---- */

hf_poset *tu_union_of_chains(uint32_t n, uint64_t *rng)
{
    uint32_t(*e)[2] = malloc((n + 1) * sizeof *e);
    size_t m = 0;
    for (uint32_t v = 1; v < n; v++)
        if (tu_below(rng, 3) != 0)
            e[m][0] = v - 1, e[m][1] = v, m++;
    hf_poset *p = tu_poset(n, (const uint32_t(*)[2])e, m);
    free(e);
    return p;
}

/* Random series-parallel order on ids [lo, lo+n): edges appended to e. Returns via mins/maxs
 * ranges encoded as flags in is_min/is_max. */
static void sp_build(uint32_t lo, uint32_t n, uint64_t *rng, uint32_t (*e)[2], size_t *m,
                     bool *is_min, bool *is_max)
{
    if (n == 1) {
        is_min[lo] = is_max[lo] = true;
        return;
    }
    uint32_t k = 1 + tu_below(rng, n - 1);
    sp_build(lo, k, rng, e, m, is_min, is_max);
    sp_build(lo + k, n - k, rng, e, m, is_min, is_max);
    if (tu_below(rng, 2)) { /* series: maxima of the first part before minima of the second */
        for (uint32_t a = lo; a < lo + k; a++)
            for (uint32_t b = lo + k; b < lo + n; b++)
                if (is_max[a] && is_min[b])
                    e[(*m)][0] = a, e[(*m)][1] = b, (*m)++;
        for (uint32_t a = lo; a < lo + k; a++)
            is_max[a] = false;
        for (uint32_t b = lo + k; b < lo + n; b++)
            is_min[b] = false;
    }
}

hf_poset *tu_series_parallel(uint32_t n, uint64_t *rng)
{
    uint32_t(*e)[2] = malloc(((size_t)n * n + 1) * sizeof *e);
    bool *is_min = calloc(n, 1), *is_max = calloc(n, 1);
    size_t m = 0;
    sp_build(0, n, rng, e, &m, is_min, is_max);
    hf_poset *p = tu_poset(n, (const uint32_t(*)[2])e, m);
    free(e);
    free(is_min);
    free(is_max);
    return p;
}

/* One of many shapes, by index. */
hf_poset *tu_some_order(unsigned i, uint32_t n, uint64_t *rng)
{
    switch (i % 9) {
    case 0:
        return tu_random_dag(n, 1, 5, rng);
    case 1:
        return tu_random_dag(n, 1, 3, rng);
    case 2:
        return tu_random_dag(n, 1, 2, rng);
    case 3:
        return tu_random_dag(n, 4, 5, rng);
    case 4:
        return tu_antichain(n);
    case 5:
        return tu_union_of_chains(n, rng);
    case 6:
        return tu_series_parallel(n, rng);
    case 7:
        return tu_random_forest(n, 1 + tu_below(rng, 2), rng);
    default:
        return tu_random_inforest(n, 1 + tu_below(rng, 2), rng);
    }
}

tu_collect tu_run_method(const struct hf_i_method *m, const hf_poset *p, unsigned d, uint64_t seed,
                         const uint32_t *focus, size_t focus_count, bool predict)
{
    hf_gen_options opt = tu_gen_options(d, m->id, focus, focus_count);
    opt.seed = seed;
    tu_collect c = {hf_poset_size(p), 0, 0, NULL};
    hf_error err;
    cr_assert_eq(m->check(p, &opt, &err), HF_OK, "%s: %s", m->name, err.text);
    cr_assert_eq(m->generate(p, &opt, tu_collect_sink(&c), &err), HF_OK, "%s: %s", m->name,
                 err.text);
    if (predict) {
        mpz_t size;
        mpz_init(size);
        cr_assert_eq(m->predict(p, &opt, size, &err), HF_OK, "%s: %s", m->name, err.text);
        cr_assert_eq(mpz_cmp_ui(size, (unsigned long)c.m), 0, "%s: predict differs from %zu",
                     m->name, c.m);
        mpz_clear(size);
    }
    return c;
}
