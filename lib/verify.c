/* Exact check that a family of schedules is d-hitting: the first uncovered admissible tuple as a
 * witness (hf_verify), or the number of uncovered tuples as a GMP integer. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "family_i.h"
#include "family_stream_i.h"
#include "hitfam/count.h"
#include "internal.h"
#include "poset_i.h"
#include "verify_focus.h"
#include "verify_ref.h"

/*
 * How it works. An admissible d-tuple is an admissible (d-1)-prefix a1..a_{d-1} followed by any
 * event that is neither in the prefix nor below one of its entries. The prefixes are enumerated
 * depth-first in lexicographic id order (an explicit stack of at most HF_MAX_D - 1 levels),
 * keeping per level
 *   F_i = {a1..ai} plus their strict down-sets (down-closed, so hf_i_or_down_set applies), and
 *   S_i = the schedules in which a1..ai appear in this order (one flag per schedule).
 * For the last prefix entry the allowed continuations form a bitset `rem`; every schedule s of
 * S_{d-1} hits exactly the continuations placed after a_{d-1} in s, so rem loses them. A schedule's
 * "after a" set is read from precomputed suffix checkpoints: for each block boundary kB, the set
 * of events at positions >= kB; the events between a and the next boundary (fewer than B) are
 * cleared one by one. Schedules are consulted in increasing position of a_{d-1} (a per-event
 * list sorted once): one that places a_{d-1} early hits nearly every continuation, so most
 * prefixes see rem emptied after a few schedules, and the loop stops there (saturation). A
 * prefix thus costs about (n/64 + B) word operations per schedule consulted instead of the
 * n * m of a tuple-by-tuple check. The order of consultation changes only when the loop stops,
 * never what is left: since prefixes come in lexicographic order and a continuation is chosen
 * as the lowest id left in rem, the first non-empty rem gives the lexicographically first
 * uncovered tuple, which makes the witness deterministic.
 *
 * For d >= 3 the last prefix entry is settled in greedy order instead (settle_greedy): the
 * schedules of S_{d-1} are listed by increasing position of a_{d-1}; the lowest continuation x
 * left in rem picks the first of them placing x after a_{d-1}, which is cut from rem; none
 * means x is the prefix's first uncovered continuation. On families for trees this consults
 * about a third of the schedules the plain order does (11 instead of 30 per prefix on a
 * 2,000-event random recursive tree), at an O(|S_{d-1}|) search per cut. The plain order stays
 * for d = 2 (S_1 holds every schedule) and as the benchmark's reference (hf_i_verify_reference).
 *
 * Threads and shards. The prefixes are split by their first event a1: a shard takes the (focus)
 * events of rank shard_index modulo shard_count, and its threads take those first events one
 * at a time from a shared counter (each thread with its own levels F, S, rem, allocated before
 * any thread starts). Counts are summed per thread. For the witness, a thread that finds an
 * uncovered tuple under a1 (the first one under a1, by the order above) publishes a1's index;
 * threads stop taking or finishing first events past the least index published, so the least
 * is the shard's first uncovered tuple whatever the number of threads.
 *
 * Repeated schedules are dropped first: a copy never hits anything new, yet the sorted lists
 * would put all copies of a schedule side by side and consult each.
 *
 * Deep trees (forests and in-forests). Every schedule of S_{d-1} places F_{d-1} but a_{d-1}
 * before a_{d-1}, so the first one consulted hits every continuation iff a_{d-1} sits at
 * position |F_{d-1}| - 1 there. On a tree |F_{d-1}| is known in O(1) without building F_{d-1}:
 * |F_{d-2}| plus the part of the root path (forest) or subtree (in-forest) of a_{d-1} outside
 * F_{d-2}, read from depths and subtree sizes and, for d >= 3, a table built once per
 * (d-2)-prefix in O(n) (not when fewer than n/16 continuations are left). Families made for trees
 * mostly place an event right after its down-set in some schedule (a chain's only schedule always
 * does), so most prefixes cost O(1) instead of O(n/64 + depth). When the test fails, F_{d-1} is
 * built as usual, except that on a forest it is carried from the previous a_{d-1}: the root path
 * changes along the tree distance between the two.
 *
 * Cost. Setup: the schedule checks O(m * (n + e)), dropping copies O(m * n + m log m),
 * positions and the per-event sorted lists O(m * n), checkpoints O(m * (n/B) * n/64). Enumeration,
 * for each admissible prefix: O(1) when a tree's first schedule settles it (above; O(m) at most to
 * find that schedule for d >= 3), else O(n/64 + down-set work) for F, O(m) per intermediate level
 * for S (none for d <= 3), then O(1) per schedule examined in the sorted list and O(n/64 + B) per
 * schedule of S_{d-1} consulted before saturation (all of them when the prefix has an uncovered
 * continuation, which is what the count pays and what hf_verify pays once). Memory: 3 * m * n
 * 32-bit ids (positions (d >= 3 only) and the sorted lists), m * (n/B) * n/64 checkpoint words, d *
 * n/64 words and d * m bytes for the levels, n + 1 ids for the table of trees (d >= 3). B is the
 * smallest power of two >= n/64, at most 64 (so the single clears never cost more than the word
 * operations; smaller blocks measured faster for n < 4096), unless the checkpoints would exceed
 * CHECKPOINT_BUDGET words; then B doubles until they fit, trading memory for the per-schedule cost.
 */

/* 2^25 words = 256 MiB of checkpoints before blocks grow beyond 64 positions. */
#define CHECKPOINT_BUDGET ((size_t)1 << 25)

struct ver {
    const hf_poset *p;
    hf_ctx *ctx;
    uint32_t n;
    size_t m; /* distinct schedules: copies add nothing and would only be consulted again */
    unsigned d;
    size_t W;   /* words of an event bitset */
    uint32_t B; /* positions per checkpoint block (a power of two) */
    unsigned B_log;
    uint32_t nb; /* blocks: ceil(n / B); checkpoints exist for boundaries 1..nb-1 */
    const uint32_t *rows;
    uint32_t *orig;      /* orig[s]: the family's index of distinct schedule s */
    uint32_t *pos;       /* pos[x * m + s]: position of event x in schedule s */
    uint32_t *by_pos;    /* by_pos[x * m + i]: the schedules sorted by the position of x */
    uint32_t *by_pos_at; /* by_pos_at[x * m + i]: the position of x in schedule by_pos[x*m+i] */
    hf_word *ck;         /* schedule s, boundary k: ck + (s * (nb - 1) + k - 1) * W */
    hf_word *focus;
    uint32_t focus_events; /* distinct focus events */
    /* Forest or in-forest views (no closure): the size of F_{d-1} is then known without
     * building it, which lets a prefix be settled by its first schedule (see from_first). */
    bool tree;
    bool reference; /* settle every prefix as before the greedy order (the benchmark's
                       reference, hf_i_verify_reference) */
    /* Where pos, by_pos, by_pos_at and ck live: the heap, or a mapped temporary file when
     * opt->memory_limit is exceeded (lib/family_stream.c); the check reads them the same way. */
    hf_i_big pos_big, by_pos_big, by_pos_at_big, ck_big;
};

/* The schedules to check: m rows of n ids, of which heap bytes are on the heap. */
struct rows {
    const uint32_t *rows;
    uint32_t n;
    size_t m;
    size_t heap;
};

/* What one thread of the enumeration owns (allocated before any thread starts). */
struct worker {
    const struct ver *v;
    hf_word *F;       /* d levels of W words; level 0 is empty */
    uint8_t *S;       /* d levels of m flags (S_i[s]: s keeps a1..ai in order); level 0: all 1 */
    hf_word *rem;     /* W */
    uint32_t *sel;    /* m: the schedules of S_{d-1}, by position of a_{d-1} */
    uint32_t *sel_at; /* m: the position of a_{d-1} in each */
    /* d >= 3 on a tree: per (d-2)-prefix, for a forest, aux[x] = the number of ancestors of x
     * (x included) in F_{d-2}; for an in-forest, aux[t] = the members of F_{d-2} among the
     * first t events of the DFS order (n + 1 entries) */
    uint32_t *aux;
    uint64_t count_lo, count_hi; /* uncovered tuples: count_hi * 2^64 + count_lo */
    size_t found;                /* index (in the shard's first events) of the witness, or
                                    SIZE_MAX */
    uint32_t witness[HF_MAX_D];
};

static void ver_free(struct ver *v)
{
    hf_i_free(v->ctx, v->orig);
    hf_i_big_free(v->ctx, &v->pos_big);
    hf_i_big_free(v->ctx, &v->by_pos_big);
    hf_i_big_free(v->ctx, &v->by_pos_at_big);
    hf_i_big_free(v->ctx, &v->ck_big);
    v->pos = v->by_pos = v->by_pos_at = NULL;
    v->ck = NULL;
    hf_i_free(v->ctx, v->focus);
}

static void worker_free(hf_ctx *ctx, struct worker *w)
{
    hf_i_free(ctx, w->F);
    hf_i_free(ctx, w->S);
    hf_i_free(ctx, w->rem);
    hf_i_free(ctx, w->sel);
    hf_i_free(ctx, w->sel_at);
    hf_i_free(ctx, w->aux);
}

/* A worker's levels and buffers; false when out of memory (then nothing is held). */
static bool worker_init(const struct ver *v, struct worker *w)
{
    memset(w, 0, sizeof *w);
    w->v = v;
    w->found = SIZE_MAX;
    size_t W = v->W ? v->W : 1, m = v->m ? v->m : 1;
    w->F = hf_i_calloc(v->ctx, (size_t)v->d * W, sizeof *w->F);
    w->S = hf_i_alloc_array(v->ctx, v->d, m);
    w->rem = hf_i_calloc(v->ctx, W, sizeof *w->rem);
    w->sel = hf_i_alloc_array(v->ctx, m, sizeof *w->sel);
    w->sel_at = hf_i_alloc_array(v->ctx, m, sizeof *w->sel_at);
    if (v->tree && v->d >= 3)
        w->aux = hf_i_alloc_array(v->ctx, (size_t)v->n + 1, sizeof *w->aux);
    if (!w->F || !w->S || !w->rem || !w->sel || !w->sel_at || (v->tree && v->d >= 3 && !w->aux)) {
        worker_free(v->ctx, w);
        return false;
    }
    memset(w->S, 1, m);
    return true;
}

/* Number of checkpoint words for block size B, or SIZE_MAX when it does not fit in size_t. */
static size_t checkpoint_words(size_t m, uint32_t n, uint32_t B, size_t W)
{
    size_t boundaries = n == 0 ? 0 : ((size_t)n + B - 1) / B - 1;
    if (boundaries == 0 || m == 0)
        return 0;
    if (boundaries > SIZE_MAX / W || m > SIZE_MAX / (boundaries * W))
        return SIZE_MAX;
    return m * boundaries * W;
}

/* Arguments, d, event counts, focus ids, then every schedule; the first problem is reported. */
static hf_status validate(const hf_poset *p, const struct rows *f, const hf_verify_options *opt,
                          hf_error *err)
{
    if (!p || !f || !opt)
        return hf_i_fail(err, HF_EINVAL, 0, 0, "invalid argument");
    if (opt->d < 1 || opt->d > HF_MAX_D)
        return hf_i_fail(err, HF_EINVAL, 0, 0, "d must be between 1 and %u, got %u", HF_MAX_D,
                         opt->d);
    if (opt->shard_count > 1 ? opt->shard_index >= opt->shard_count : opt->shard_index != 0)
        return hf_i_fail(err, HF_EINVAL, 0, 0,
                         "shard index %" PRIu32
                         " out of range (shards are numbered from 0 to %" PRIu32 ")",
                         opt->shard_index, opt->shard_count > 1 ? opt->shard_count - 1 : 0);
    if (f->n != p->n)
        return hf_i_fail(err, HF_EMISMATCH, 0, 0,
                         "family has %" PRIu32 " events, order has %" PRIu32, f->n, p->n);
    if (opt->focus)
        for (size_t i = 0; i < opt->focus_count; i++)
            if (opt->focus[i] >= p->n)
                return hf_i_fail(err, HF_EINVAL, 0, 0,
                                 "focus event id %" PRIu32 " out of range (the order has %" PRIu32
                                 " events)",
                                 opt->focus[i], p->n);
    static const uint32_t none[1] = {0};
    for (size_t i = 0; i < f->m; i++) {
        /* With n = 0 the rows may be absent; the check then reads nothing. */
        const uint32_t *row = p->n ? f->rows + i * (size_t)p->n : none;
        hf_status st = hf_i_schedule_check(p, row, i, 0, err);
        if (st)
            return st;
    }
    return HF_OK;
}

static const uint32_t *row_of(const struct ver *v, size_t s)
{
    return v->rows + (size_t)v->orig[s] * v->n;
}

struct keyed {
    uint64_t hash;
    uint32_t index;
};

static int keyed_cmp(const void *a, const void *b)
{
    const struct keyed *x = a, *y = b;
    if (x->hash != y->hash)
        return x->hash < y->hash ? -1 : 1;
    return (x->index > y->index) - (x->index < y->index);
}

/* v->orig = the family's schedules without repeats, first copies in family order. Hashing and
 * sorting: O(m * n + m log m). */
static hf_status distinct_schedules(struct ver *v, size_t m)
{
    uint32_t n = v->n;
    struct keyed *key = hf_i_alloc_array(v->ctx, m, sizeof *key);
    uint8_t *copy = hf_i_calloc(v->ctx, m, 1);
    v->orig = hf_i_alloc_array(v->ctx, m, sizeof *v->orig);
    if (!key || !copy || !v->orig) {
        hf_i_free(v->ctx, key);
        hf_i_free(v->ctx, copy);
        return HF_ENOMEM;
    }
    for (size_t s = 0; s < m; s++) {
        const uint32_t *row = v->rows + s * n;
        uint64_t h = 0x243f6a8885a308d3u;
        for (uint32_t q = 0; q < n; q++) {
            h = (h ^ row[q]) * 0x9e3779b97f4a7c15u;
            h ^= h >> 29;
        }
        key[s].hash = h;
        key[s].index = (uint32_t)s;
    }
    qsort(key, m, sizeof *key, keyed_cmp);
    for (size_t i = 0, run = 0; i < m; i++) {
        if (key[i].hash != key[run].hash)
            run = i;
        const uint32_t *row = v->rows + (size_t)key[i].index * n;
        for (size_t j = run; j < i && !copy[key[i].index]; j++)
            if (!copy[key[j].index] &&
                memcmp(v->rows + (size_t)key[j].index * n, row, n * sizeof *row) == 0)
                copy[key[i].index] = 1;
    }
    v->m = 0;
    for (size_t s = 0; s < m; s++)
        if (!copy[s])
            v->orig[v->m++] = (uint32_t)s;
    hf_i_free(v->ctx, key);
    hf_i_free(v->ctx, copy);
    return HF_OK;
}

/* Everything but the enumeration levels' content. Needs a validated input. */
static hf_status ver_init(struct ver *v, const hf_poset *p, const struct rows *f,
                          const hf_verify_options *opt, hf_error *err)
{
    memset(v, 0, sizeof *v);
    v->p = p;
    v->ctx = p->ctx;
    v->n = p->n;
    v->m = f->m;
    v->d = opt->d;
    v->rows = f->rows;
    v->W = hf_i_words(v->n);
    hf_ctx *ctx = v->ctx;
    size_t W = v->W ? v->W : 1;

    v->focus = hf_i_calloc(ctx, W, sizeof *v->focus);
    if (!v->focus)
        goto nomem;
    if (opt->focus) {
        for (size_t i = 0; i < opt->focus_count; i++)
            hf_i_bit_set(v->focus, opt->focus[i]);
    } else {
        for (uint32_t x = 0; x < v->n; x++)
            hf_i_bit_set(v->focus, x);
    }
    for (size_t w = 0; w < v->W; w++)
        v->focus_events += hf_i_popcount(v->focus[w]);
    /* With fewer (focus) events than d there are no d-tuples; a d-hitting family must still be
     * d'-hitting for every d' <= d (docs/bounds.md, "Convention"), so the check falls back to
     * the longest tuples there are. d <= 1 is decided without the tables. */
    if (v->d > v->focus_events)
        v->d = (unsigned)v->focus_events;
    if (v->d <= 1)
        return HF_OK;

    uint32_t n = v->n;
    /* schedule indices are stored in 32 bits; so many schedules would not fit in memory */
    if (v->m > UINT32_MAX || distinct_schedules(v, v->m))
        goto nomem;
    size_t m = v->m;
    v->B = 1;
    while (v->B < 64 && v->B < W)
        v->B *= 2;
    while (v->B < n && checkpoint_words(m, n, v->B, W) > CHECKPOINT_BUDGET)
        v->B *= 2;
    while (((uint32_t)1 << v->B_log) < v->B)
        v->B_log++;
    v->nb = (uint32_t)(((uint64_t)n + v->B - 1) / v->B);
    size_t ckw = checkpoint_words(m, n, v->B, W);
    if (ckw == SIZE_MAX || (m && n > SIZE_MAX / m))
        goto nomem;

    /* the tables go to a mapped file when they and the rows on the heap exceed the limit */
    uint64_t ids = (uint64_t)n * m, bytes = (v->d >= 3 ? 3 : 2) * ids * sizeof(uint32_t);
    bool mapped =
        opt->memory_limit && bytes + (uint64_t)ckw * sizeof(hf_word) + f->heap > opt->memory_limit;
    /* positions by schedule are needed only to order two prefix entries */
    if (v->d >= 3 &&
        !(v->pos = hf_i_big_alloc(ctx, (size_t)n * m, sizeof *v->pos, mapped, &v->pos_big)))
        goto nomem;
    v->by_pos = hf_i_big_alloc(ctx, (size_t)n * m, sizeof *v->by_pos, mapped, &v->by_pos_big);
    v->by_pos_at =
        hf_i_big_alloc(ctx, (size_t)n * m, sizeof *v->by_pos_at, mapped, &v->by_pos_at_big);
    v->ck = hf_i_big_alloc(ctx, ckw, sizeof *v->ck, mapped, &v->ck_big);
    v->tree = v->p->tin && !v->p->closure && (v->p->dual || v->p->parent);
    /* the running suffix set of the checkpoints below */
    hf_word *run = hf_i_calloc(ctx, W, sizeof *run);
    uint32_t *fill = hf_i_calloc(ctx, n, sizeof *fill);
    if (!v->by_pos || !v->by_pos_at || !v->ck || !run || !fill) {
        hf_i_free(ctx, run);
        hf_i_free(ctx, fill);
        goto nomem;
    }
    /* position by position, so that each event's list comes out sorted */
    for (uint32_t q = 0; q < n; q++)
        for (size_t s = 0; s < m; s++) {
            uint32_t x = row_of(v, s)[q];
            v->by_pos_at[(size_t)x * m + fill[x]] = q;
            v->by_pos[(size_t)x * m + fill[x]++] = (uint32_t)s;
        }
    hf_i_free(ctx, fill);

    for (size_t s = 0; s < m; s++) {
        const uint32_t *row = row_of(v, s);
        for (uint32_t q = 0; q < n && v->pos; q++)
            v->pos[(size_t)row[q] * m + s] = q;
        /* suffix sets from the end */
        memset(run, 0, W * sizeof *run);
        for (uint32_t k = v->nb - 1; k >= 1; k--) {
            uint64_t end = (uint64_t)(k + 1) * v->B;
            for (uint32_t q = k * v->B; q < end && q < n; q++)
                hf_i_bit_set(run, row[q]);
            memcpy(v->ck + (s * (v->nb - 1) + k - 1) * W, run, W * sizeof *run);
        }
    }
    hf_i_free(ctx, run);
    return HF_OK;
nomem:
    ver_free(v);
    return hf_i_fail(err, HF_ENOMEM, 0, 0, "out of memory verifying a family of %zu schedules",
                     f->m);
}

/* The lowest allowed (focus, not in F) event with id >= from, or HF_NO_EVENT. */
static uint32_t next_allowed(const struct ver *v, const hf_word *F, uint32_t from)
{
    size_t w = from / HF_WORD_BITS;
    if (w >= v->W)
        return HF_NO_EVENT;
    hf_word x = ~F[w] & v->focus[w] & (~(hf_word)0 << (from % HF_WORD_BITS));
    while (!x) {
        if (++w == v->W)
            return HF_NO_EVENT;
        x = ~F[w] & v->focus[w];
    }
    return (uint32_t)(w * HF_WORD_BITS + hf_i_ctz(x));
}

/* rem &= ~(events after position p in schedule s), on the non-zero word range [*lo, *hi].
 * Returns false when rem became empty. */
static bool cut_after(const struct ver *v, hf_word *rem, size_t s, uint32_t p, size_t *lo,
                      size_t *hi)
{
    uint32_t k = (p >> v->B_log) + 1;
    uint64_t end = k < v->nb ? (uint64_t)k * v->B : v->n;
    const uint32_t *row = row_of(v, s);
    for (uint32_t q = p + 1; q < end; q++)
        hf_i_bit_clear(rem, row[q]);
    size_t l = *lo, h = *hi;
    if (k < v->nb) {
        const hf_word *c = v->ck + (s * (v->nb - 1) + k - 1) * v->W;
        for (size_t w = l; w <= h; w++)
            rem[w] &= ~c[w];
    }
    while (l <= h && rem[l] == 0)
        l++;
    if (l > h)
        return false;
    while (rem[h] == 0)
        h--;
    *lo = l;
    *hi = h;
    return true;
}

/* cut_after that also counts the non-zero words left (into *nonzero); rem may become empty
 * (*lo > *hi). Counting words instead of bits keeps popcount (a library call on plain x86-64)
 * out of the loop. */
static void cut_counted(const struct ver *v, hf_word *rem, size_t s, uint32_t p, size_t *lo,
                        size_t *hi, size_t *nonzero)
{
    uint32_t k = (p >> v->B_log) + 1;
    uint64_t end = k < v->nb ? (uint64_t)k * v->B : v->n;
    const uint32_t *row = row_of(v, s);
    for (uint32_t q = p + 1; q < end; q++)
        hf_i_bit_clear(rem, row[q]);
    size_t l = *lo, h = *hi, count = 0;
    if (k < v->nb) {
        const hf_word *c = v->ck + (s * (v->nb - 1) + k - 1) * v->W;
        for (size_t w = l; w <= h; w++) {
            rem[w] &= ~c[w];
            count += rem[w] != 0;
        }
    } else {
        for (size_t w = l; w <= h; w++)
            count += rem[w] != 0;
    }
    *nonzero = count;
    while (l <= h && rem[l] == 0)
        l++;
    while (l <= h && rem[h] == 0)
        h--;
    *lo = l;
    *hi = h;
}

/* aux for the down-closed set F = F_{d-2} of a tree. O(n). */
static void tree_aux(const struct ver *v, uint32_t *aux, const hf_word *F)
{
    const hf_poset *p = v->p;
    if (p->dual) {
        aux[0] = 0;
        for (uint32_t t = 0; t < v->n; t++)
            aux[t + 1] = aux[t] + hf_i_bit_test(F, p->dfs_order[t]);
        return;
    }
    /* parents come first in the DFS order; F holds whole root paths, so the count of a node
     * outside F is that of its deepest ancestor inside */
    for (uint32_t t = 0; t < v->n; t++) {
        uint32_t x = p->dfs_order[t], up = p->parent[x];
        aux[x] = hf_i_bit_test(F, x) ? p->depth[x] + 1 : up == HF_NO_EVENT ? 0 : aux[up];
    }
}

/* On a tree, the events that c and its down-set add to F_{d-2} (c not in it): the part of the
 * root path (forest) or of the subtree (in-forest) of c outside F_{d-2}. O(1); aux is read only
 * when F_{d-2} is not empty (d >= 3). */
static uint32_t tree_added(const struct ver *v, const uint32_t *aux, uint32_t c)
{
    const hf_poset *p = v->p;
    if (p->dual)
        return p->subtree[c] - (v->d >= 3 ? aux[p->tout[c] + 1] - aux[p->tin[c]] : 0);
    return p->depth[c] + 1 - (v->d >= 3 ? aux[c] : 0);
}

static void mpz_add_u64(mpz_t z, uint64_t x)
{
#if ULONG_MAX >= UINT64_MAX
    mpz_add_ui(z, z, (unsigned long)x);
#else
    mpz_t t;
    mpz_init_set_ui(t, (unsigned long)(x >> 32));
    mpz_mul_2exp(t, t, 32);
    mpz_add_ui(t, t, (unsigned long)(x & 0xffffffffu));
    mpz_add(z, z, t);
    mpz_clear(t);
#endif
}

static void worker_count(struct worker *w, uint64_t x)
{
    w->count_lo += x;
    w->count_hi += w->count_lo < x;
}

/* The last prefix entry with the schedules of S_last given as w->sel / w->sel_at (k of them, by
 * increasing position of a_last): the greedy order. The lowest continuation x left in rem is
 * looked up in the schedules in that order; the first that places x after a_last hits x, and is
 * cut from rem as a whole (words while rem is large, bit by bit once few continuations are
 * left). No such schedule: x is uncovered, and since every lower continuation has been hit, x is
 * the prefix's first uncovered one. Each cut removes at least x, and taking the schedule that
 * places a_last earliest among those hitting x removes most; on families for trees this
 * consults about a third of the schedules the increasing-position order does. Returns the
 * number of uncovered continuations, or with first_only stops at the first one (stored in
 * *first, returns 1). */
static size_t settle_greedy(const struct worker *w, size_t k, size_t lo, size_t hi, bool first_only,
                            uint32_t *first)
{
    const struct ver *v = w->v;
    const size_t m = v->m;
    hf_word *rem = w->rem;
    const uint32_t *sel = w->sel, *sel_at = w->sel_at;
    size_t missed = 0, nonzero = hi - lo + 1;
    while (lo <= hi) {
        uint32_t x = (uint32_t)(lo * HF_WORD_BITS + hf_i_ctz(rem[lo]));
        const uint32_t *px = v->pos + (size_t)x * m;
        size_t j = 0;
        while (j < k && px[sel[j]] < sel_at[j])
            j++;
        if (j == k) {
            if (first_only) {
                *first = x;
                return 1;
            }
            missed++;
            hf_i_bit_clear(rem, x);
        } else if (nonzero * 8 <= hi - lo + 1 + v->B) {
            /* few words left: test each continuation against the schedule's positions */
            const uint32_t s = sel[j], at = sel_at[j];
            for (size_t u = lo; u <= hi; u++)
                for (hf_word b = rem[u]; b; b &= b - 1) {
                    uint32_t y = (uint32_t)(u * HF_WORD_BITS + hf_i_ctz(b));
                    if (v->pos[(size_t)y * m + s] > at)
                        rem[u] &= ~((hf_word)1 << (y % HF_WORD_BITS));
                }
        } else {
            cut_counted(v, rem, sel[j], sel_at[j], &lo, &hi, &nonzero);
            continue;
        }
        nonzero = 0;
        for (size_t u = lo; u <= hi; u++)
            nonzero += rem[u] != 0;
        while (lo <= hi && rem[lo] == 0)
            lo++;
        while (lo <= hi && rem[hi] == 0)
            hi--;
    }
    return missed;
}

/* Where the workers meet: the first events of the shard's prefixes, handed out in increasing
 * order, and the index of the earliest one known to start an uncovered tuple. */
struct shared {
    const struct ver *v;
    bool first_only;
    const uint32_t *firsts; /* the shard's first events, increasing */
    size_t count;           /* how many */
    atomic_size_t next;     /* the next index to hand out */
    atomic_size_t best;     /* with first_only: the least index found uncovered, or SIZE_MAX */
};

/* The admissible prefixes starting with a1 = sh->firsts[idx] (d >= 2), depth-first in
 * lexicographic order. With first_only, stop at the first uncovered tuple (into w->witness,
 * returns true) or as soon as another worker found one with an earlier first event (returns
 * false); otherwise add the uncovered tuples to w's count. */
static bool from_first(struct worker *w, struct shared *sh, size_t idx)
{
    const struct ver *v = w->v;
    const bool first_only = sh->first_only;
    const unsigned last = v->d - 1; /* prefix length */
    const size_t W = v->W, m = v->m;
    uint32_t a[HF_MAX_D], cursor[HF_MAX_D];
    const uint8_t *S[HF_MAX_D];
    S[0] = w->S;
    /* fsize: |F_{d-2}| (trees only); quick: the last level may try its first schedule alone */
    size_t fsize = 0;
    bool quick = v->tree && last == 1;
    /* forests: F_last is kept from one c to the next (held: the c it was built for) */
    const bool path = v->tree && !v->p->dual;
    uint32_t held = HF_NO_EVENT;
    uint64_t acc = 0;
    unsigned lvl = 1;
    bool started = false;
    for (;;) {
        const hf_word *Fprev = w->F + (lvl - 1) * W;
        uint32_t c;
        if (lvl == 1) {
            if (started)
                break;
            started = true;
            c = sh->firsts[idx];
        } else {
            if (first_only && atomic_load_explicit(&sh->best, memory_order_relaxed) < idx)
                return false;
            c = next_allowed(v, Fprev, cursor[lvl]);
            if (c == HF_NO_EVENT) {
                lvl--;
                continue;
            }
            cursor[lvl] = c + 1;
        }
        a[lvl] = c;
        const uint32_t *order = v->by_pos + (size_t)c * m, *at = v->by_pos_at + (size_t)c * m;
        const uint32_t *pp = lvl > 1 ? v->pos + (size_t)a[lvl - 1] * m : NULL;
        const uint8_t *Sprev = S[lvl - 1];
        if (lvl == last && quick) {
            /* Every schedule of S_last places F_last but c before c, so the first one in the
             * order of c's position (ties with the general loop below) hits every
             * continuation exactly when c comes right after F_last - c there: the usual case
             * on deep trees, settled in O(1) instead of O(n/64 + depth). */
            size_t i = 0;
            if (pp)
                while (i < m && !(Sprev[order[i]] && pp[order[i]] < at[i]))
                    i++;
            if (i < m && (size_t)at[i] + 1 == fsize + tree_added(v, w->aux, c))
                continue;
        }
        hf_word *Fcur = w->F + lvl * W;
        if (lvl == last && path) {
            /* F_last = F_{last-1} plus the root path of c: from that of the previous c, drop
             * the events above it up to a common ancestor (or F_{last-1}), then add those of
             * c's path; cost the tree distance instead of O(n/64 + depth) */
            if (held == HF_NO_EVENT)
                memcpy(Fcur, Fprev, W * sizeof *Fcur);
            const uint32_t *tin = v->p->tin, *tout = v->p->tout;
            for (uint32_t u = held; u != HF_NO_EVENT && !hf_i_bit_test(Fprev, u) &&
                                    !(tin[u] <= tin[c] && tin[c] <= tout[u]);
                 u = v->p->parent[u])
                hf_i_bit_clear(Fcur, u);
            held = c;
        } else {
            memcpy(Fcur, Fprev, W * sizeof *Fcur);
        }
        hf_i_or_down_set(v->p, c, Fcur);
        hf_i_bit_set(Fcur, c);
        if (lvl < last) {
            /* the schedules keeping a1..a_lvl in order */
            if (lvl == 1) {
                S[1] = S[0];
            } else {
                const uint32_t *pc = v->pos + (size_t)c * m;
                uint8_t *Scur = w->S + lvl * m;
                for (size_t s = 0; s < m; s++)
                    Scur[s] = Sprev[s] & (pp[s] < pc[s]);
                S[lvl] = Scur;
            }
            if (lvl + 1 == last)
                held = HF_NO_EVENT;
            if (lvl + 1 == last && v->tree) {
                fsize = 0;
                for (size_t u = 0; u < W; u++)
                    fsize += hf_i_popcount(Fcur[u]);
                /* the O(n) table pays off unless few continuations are left */
                quick = (v->n - fsize) * (size_t)16 >= v->n;
                if (quick)
                    tree_aux(v, w->aux, Fcur);
            }
            lvl++;
            cursor[lvl] = 0;
            continue;
        }

        /* last prefix entry: the continuations, minus those some schedule of S_last hits */
        hf_word *rem = w->rem;
        size_t lo = SIZE_MAX, hi = 0;
        for (size_t u = 0; u < W; u++) {
            rem[u] = ~Fcur[u] & v->focus[u];
            if (rem[u]) {
                lo = lo == SIZE_MAX ? u : lo;
                hi = u;
            }
        }
        if (lo == SIZE_MAX)
            continue;
        if (pp && !v->reference) {
            size_t k = 0;
            for (size_t j = 0; j < m; j++) {
                uint32_t s = order[j];
                w->sel[k] = s;
                w->sel_at[k] = at[j];
                k += Sprev[s] & (pp[s] < at[j]);
            }
            uint32_t x = HF_NO_EVENT;
            size_t missed = settle_greedy(w, k, lo, hi, first_only, &x);
            if (first_only && missed) {
                for (unsigned i = 1; i <= last; i++)
                    w->witness[i - 1] = a[i];
                w->witness[last] = x;
                return true;
            }
            acc += missed;
            continue;
        }
        bool open = true;
        /* 64 schedules at a time: the membership tests (in S_{last-1}, a_{last-1} before c)
         * without branches, then the cuts; most prefixes stop within the first chunks */
        for (size_t base = 0; base < m && open; base += HF_WORD_BITS) {
            const uint32_t *chunk = order + base, *chunk_at = at + base;
            size_t len = m - base < HF_WORD_BITS ? m - base : HF_WORD_BITS;
            hf_word use = len == HF_WORD_BITS ? ~(hf_word)0 : ((hf_word)1 << len) - 1;
            if (pp) {
                use = 0;
                for (size_t j = 0; j < len; j++) {
                    uint32_t s = chunk[j];
                    use |= (hf_word)(Sprev[s] & (pp[s] < chunk_at[j])) << j;
                }
            }
            for (; use && open; use &= use - 1) {
                unsigned j = hf_i_ctz(use);
                open = cut_after(v, rem, chunk[j], chunk_at[j], &lo, &hi);
            }
        }
        if (!open)
            continue;
        if (first_only) {
            for (unsigned i = 1; i <= last; i++)
                w->witness[i - 1] = a[i];
            w->witness[last] = (uint32_t)(lo * HF_WORD_BITS + hf_i_ctz(rem[lo]));
            return true;
        }
        for (size_t u = lo; u <= hi; u++)
            acc += hf_i_popcount(rem[u]);
    }
    worker_count(w, acc);
    return false;
}

/* One worker: take the next first event until none is left (or, with first_only, until the
 * rest come after one known to start an uncovered tuple). Worker 0 runs in the calling thread
 * and reports progress. */
struct job {
    struct shared *sh;
    struct worker *w;
    bool log;
};

static void *work(void *arg)
{
    struct job *job = arg;
    struct shared *sh = job->sh;
    struct worker *w = job->w;
    const struct ver *v = sh->v;
    size_t step = sh->count / 100 ? sh->count / 100 : 1, logged = 0;
    for (;;) {
        size_t i = atomic_fetch_add(&sh->next, 1);
        if (i >= sh->count)
            break;
        if (sh->first_only && i > atomic_load(&sh->best))
            break;
        if (job->log && i >= logged) {
            hf_i_log(v->ctx, HF_LOG_PROGRESS, "verify d=%u: first event %" PRIu32 " of %" PRIu32,
                     v->d, sh->firsts[i], v->n);
            logged = i + step;
        }
        if (from_first(w, sh, i)) {
            w->found = i;
            size_t b = atomic_load(&sh->best);
            while (i < b && !atomic_compare_exchange_weak(&sh->best, &b, i)) {
            }
            break;
        }
    }
    return NULL;
}

/* Threads to use: the option (0: the processors online), at most one per first event, and one
 * alone for small checks, where starting threads would cost more than they save. */
static unsigned thread_count(const struct ver *v, unsigned wanted, size_t firsts)
{
    if (wanted == 0 && (uint64_t)v->n * v->m * firsts < ((uint64_t)1 << 20))
        return 1;
    if (wanted == 0) {
        long online = sysconf(_SC_NPROCESSORS_ONLN);
        wanted = online > 0
                     ? (unsigned)(online < HF_VERIFY_MAX_THREADS ? online : HF_VERIFY_MAX_THREADS)
                     : 1;
    }
    if (wanted > HF_VERIFY_MAX_THREADS)
        wanted = HF_VERIFY_MAX_THREADS;

    return wanted < firsts ? wanted : firsts ? (unsigned)firsts : 1;
}

/* The rank of a (focus) event among the (focus) events decides its shard. */
static bool in_shard(const hf_verify_options *opt, size_t rank)
{
    uint32_t k = opt->shard_count > 1 ? opt->shard_count : 1;
    return rank % k == opt->shard_index;
}

/* The lowest (focus) event of the shard, or HF_NO_EVENT. */
static uint32_t shard_first_event(const struct ver *v, const hf_verify_options *opt)
{
    size_t rank = 0;
    for (uint32_t x = 0; x < v->n; x++)
        if (hf_i_bit_test(v->focus, x) && in_shard(opt, rank++))
            return x;
    return HF_NO_EVENT;
}

/* The number of (focus) events of the shard. */
static unsigned long shard_events(const struct ver *v, const hf_verify_options *opt)
{
    unsigned long count = 0;
    size_t rank = 0;
    for (uint32_t x = 0; x < v->n; x++)
        if (hf_i_bit_test(v->focus, x) && in_shard(opt, rank++))
            count++;
    return count;
}

/* The shard's first events: the (focus) events whose rank among the (focus) events, in
 * increasing id order, is shard_index modulo shard_count. NULL when out of memory. */
static uint32_t *shard_firsts(const struct ver *v, const hf_verify_options *opt, size_t *count)
{
    uint32_t *firsts =
        hf_i_alloc_array(v->ctx, v->focus_events ? v->focus_events : 1, sizeof *firsts);
    if (!firsts)
        return NULL;
    size_t c = 0, rank = 0;
    for (uint32_t x = 0; x < v->n; x++)
        if (hf_i_bit_test(v->focus, x) && in_shard(opt, rank++))
            firsts[c++] = x;
    *count = c;
    return firsts;
}

/* The enumeration over the shard (d >= 2), on opt->threads threads. With first_only: true and
 * the lexicographically first uncovered tuple of the shard in witness, or false; otherwise
 * false and the uncovered tuples of the shard in total. Every buffer is allocated here, before
 * any thread starts. */
static hf_status enumerate(const struct ver *v, const hf_verify_options *opt, bool first_only,
                           uint32_t *witness, mpz_t total, bool *found, hf_error *err)
{
    *found = false;
    size_t count = 0;
    uint32_t *firsts = shard_firsts(v, opt, &count);
    unsigned threads = thread_count(v, opt->threads, count);
    struct worker *ws = hf_i_calloc(v->ctx, threads, sizeof *ws);
    struct job *jobs = hf_i_calloc(v->ctx, threads, sizeof *jobs);
    pthread_t *tid = hf_i_calloc(v->ctx, threads, sizeof *tid);
    unsigned ready = 0;
    if (firsts && ws && jobs && tid)
        while (ready < threads && worker_init(v, &ws[ready]))
            ready++;
    if (ready < threads) {
        for (unsigned t = 0; t < ready; t++)
            worker_free(v->ctx, &ws[t]);
        hf_i_free(v->ctx, firsts);
        hf_i_free(v->ctx, ws);
        hf_i_free(v->ctx, jobs);
        hf_i_free(v->ctx, tid);
        return hf_i_fail(err, HF_ENOMEM, 0, 0, "out of memory verifying a family of %zu schedules",
                         v->m);
    }
    struct shared sh = {.v = v, .first_only = first_only, .firsts = firsts, .count = count};
    atomic_init(&sh.next, 0);
    atomic_init(&sh.best, SIZE_MAX);
    /* a thread that cannot be started leaves its share to the others */
    unsigned started = 1;
    for (unsigned t = 0; t < threads; t++)
        jobs[t] = (struct job){.sh = &sh, .w = &ws[t], .log = t == 0};
    for (unsigned t = 1; t < threads; t++)
        if (pthread_create(&tid[started], NULL, work, &jobs[t]) == 0)
            started++;
    work(&jobs[0]);
    for (unsigned t = 1; t < started; t++)
        pthread_join(tid[t], NULL);
    size_t best = SIZE_MAX;
    for (unsigned t = 0; t < threads; t++) {
        if (first_only && ws[t].found < best) {
            best = ws[t].found;
            memcpy(witness, ws[t].witness, v->d * sizeof *witness);
        }
        if (!first_only) {
            mpz_t hi;
            mpz_init(hi);
            mpz_add_u64(hi, ws[t].count_hi);
            mpz_mul_2exp(hi, hi, 64);
            mpz_add(total, total, hi);
            mpz_add_u64(total, ws[t].count_lo);
            mpz_clear(hi);
        }
        worker_free(v->ctx, &ws[t]);
    }
    *found = best != SIZE_MAX;
    hf_i_free(v->ctx, firsts);
    hf_i_free(v->ctx, ws);
    hf_i_free(v->ctx, jobs);
    hf_i_free(v->ctx, tid);
    return HF_OK;
}

/* With a focus set of fewer events than the order, *pr = the order and the family restricted
 * to it (lib/verify_focus.c), which the check then works on at the focus set's cost; otherwise
 * pr->p = NULL. */
static hf_status project(const hf_poset *p, const struct rows *f, const hf_verify_options *opt,
                         struct hf_i_projection *pr, hf_error *err)
{
    memset(pr, 0, sizeof *pr);
    if (!opt->focus)
        return HF_OK;
    hf_word *seen = hf_i_calloc(p->ctx, hf_i_words(p->n) ? hf_i_words(p->n) : 1, sizeof *seen);
    if (!seen)
        return hf_i_fail(err, HF_ENOMEM, 0, 0, "out of memory verifying a family of %zu schedules",
                         f->m);
    uint32_t k = 0;
    for (size_t i = 0; i < opt->focus_count; i++)
        if (!hf_i_bit_test(seen, opt->focus[i])) {
            hf_i_bit_set(seen, opt->focus[i]);
            k++;
        }
    hf_i_free(p->ctx, seen);
    if (k == p->n)
        return HF_OK;
    return hf_i_focus_project(p, f->rows, f->m, opt->focus, opt->focus_count, pr, err);
}

void hf_verify_options_init(hf_verify_options *o)
{
    if (!o)
        return;
    memset(o, 0, sizeof *o);
    o->d = 2;
    o->shard_count = 1;
}

/* The same options for the order restricted to the focus set. */
static hf_verify_options unfocused(const hf_verify_options *opt)
{
    hf_verify_options sub = *opt;
    sub.focus = NULL;
    sub.focus_count = 0;
    return sub;
}

/* The rows of a family (NULL: none, which validate refuses). */
static const struct rows *family_rows(const hf_family *f, struct rows *r)
{
    if (!f)
        return NULL;
    *r = (struct rows){f->rows, f->n, f->m, f->m * (size_t)f->n * sizeof *f->rows};
    return r;
}

/* The whole check: with result, the first uncovered tuple (hf_verify); otherwise the number of
 * uncovered tuples into out (hf_verify_count_uncovered). */
static hf_status check_rows(const hf_poset *p, const struct rows *f, const hf_verify_options *opt,
                            bool reference, hf_verify_result *result, mpz_t out, hf_error *err)
{
    hf_status st = validate(p, f, opt, err);
    if (st)
        return st;
    struct hf_i_projection pr;
    if ((st = project(p, f, opt, &pr, err)))
        return st;
    if (pr.p) {
        /* the same check on the focus events alone; the witness renamed back */
        hf_verify_options sub = unfocused(opt);
        struct rows pf = {pr.f->rows, pr.f->n, pr.f->m, 0};
        pf.heap = f->heap + pr.f->m * (size_t)pr.f->n * sizeof *pr.f->rows;
        st = check_rows(pr.p, &pf, &sub, reference, result, out, err);
        for (unsigned i = 0; result && i < HF_MAX_D && !st; i++)
            if (result->witness[i] != HF_NO_EVENT)
                result->witness[i] = pr.ids[result->witness[i]];
        hf_i_projection_free(p->ctx, &pr);
        return st;
    }
    struct ver v;
    if ((st = ver_init(&v, p, f, opt, err)))
        return st;
    v.reference = reference;
    if (!result) {
        mpz_set_ui(out, 0);
        if (v.d == 0) {
            /* no (focus) event */
        } else if (v.d == 1) {
            if (v.m == 0)
                mpz_set_ui(out, shard_events(&v, opt));
        } else {
            bool found;
            st = enumerate(&v, opt, false, NULL, out, &found, err);
        }
        ver_free(&v);
        return st;
    }
    result->d = v.d;
    result->hitting = true;
    for (unsigned i = 0; i < HF_MAX_D; i++)
        result->witness[i] = HF_NO_EVENT;
    if (v.d == 0) {
        /* no (focus) event: nothing to hit */
    } else if (v.d == 1) {
        /* the shard's events are its 1-tuples */
        uint32_t first = shard_first_event(&v, opt);
        if (v.m == 0 && first != HF_NO_EVENT) {
            result->hitting = false;
            result->witness[0] = first;
        }
    } else {
        bool found;
        st = enumerate(&v, opt, true, result->witness, NULL, &found, err);
        result->hitting = !found;
    }
    ver_free(&v);
    return st;
}

hf_status hf_verify(const hf_poset *p, const hf_family *f, const hf_verify_options *opt,
                    hf_verify_result *result, hf_error *err)
{
    return hf_i_verify_reference(p, f, opt, false, result, err);
}

hf_status hf_i_verify_reference(const hf_poset *p, const hf_family *f, const hf_verify_options *opt,
                                bool reference, hf_verify_result *result, hf_error *err)
{
    hf_i_error_clear(err);
    if (!result)
        return hf_i_fail(err, HF_EINVAL, 0, 0, "invalid argument");
    struct rows r;
    return check_rows(p, family_rows(f, &r), opt, reference, result, NULL, err);
}

hf_status hf_verify_count_uncovered(const hf_poset *p, const hf_family *f,
                                    const hf_verify_options *opt, mpz_t out, hf_error *err)
{
    hf_i_error_clear(err);
    if (!out)
        return hf_i_fail(err, HF_EINVAL, 0, 0, "invalid argument");
    struct rows r;
    return check_rows(p, family_rows(f, &r), opt, false, NULL, out, err);
}

hf_status hf_i_verify_rows(const hf_poset *p, const uint32_t *rows, uint32_t n, size_t m,
                           size_t rows_bytes, const hf_verify_options *opt,
                           hf_verify_result *result, mpz_t count, hf_error *err)
{
    struct rows r = {rows, n, m, rows_bytes};
    return check_rows(p, &r, opt, false, result, count, err);
}
