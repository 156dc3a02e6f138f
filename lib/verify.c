/* Exact check that a family of schedules is d-hitting: the first uncovered admissible tuple as a
 * witness (hf_verify), or the number of uncovered tuples as a GMP integer. */
#include <limits.h>
#include <string.h>

#include "family_i.h"
#include "family_stream_i.h"
#include "hitfam/count.h"
#include "internal.h"
#include "poset_i.h"
#include "verify_focus.h"
#include "verify_i.h"
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
 * Forests, d >= 3 (lib/verify_forest.c). The continuations form an up-set and a schedule that
 * hits c hits every event above c, so a prefix hits them all iff it hits the minimal ones (the
 * roots and children of F_{d-1}'s members outside it), which are looked up one by one before any
 * cut. For d = 3 the condition splits into two bit matrices over the pairs (a, b), A (the minimal
 * events hanging off a's root path) and B (those off b's), each filled word-parallel from the
 * checkpoints, for all b (or all a) at once; A one row per first event, B by the workers 64
 * rows at a time, each chunk once the prefixes needing it have cost a share of its filling. A
 * prefix then costs two bit tests, and the enumeration visits only the prefixes failing them,
 * which are settled by the greedy cuts (the witness, the count). On a 2,000-event random
 * recursive tree with its 82-schedule family this takes a twentieth of the processor time of the
 * increasing-position order; on deep trees, where the quick test settles the prefixes, few
 * chunks of B are filled.
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
 *
 * Files. This one checks the input and runs the whole check (focus sets through
 * lib/verify_focus.c); lib/verify_tables.c builds the tables above, lib/verify_prefix.c
 * enumerates the prefixes under one first event, lib/verify_forest.c settles them on forests by
 * their minimal continuations and the pair matrices, lib/verify_threads.c hands first events to
 * the threads of a shard (and B's rows to fill) and gathers their answers; lib/verify_i.h holds
 * what they share.
 */

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
    uint64_t work = 0;
    for (size_t i = 0; i < f->m; i++) {
        /* With n = 0 the rows may be absent; the check then reads nothing. */
        const uint32_t *row = p->n ? f->rows + i * (size_t)p->n : none;
        hf_status st = hf_i_schedule_check(p, row, i, 0, err);
        /* the line goes to err->line only: the message stays the one hf_verify always gave */
        if (st == HF_ESCHEDULE && err && i < f->lined)
            err->line = f->lines[i] > INT_MAX ? INT_MAX : (int)f->lines[i];
        if (!st)
            st = hf_i_ver_setup_tick(p->ctx, &work, (uint64_t)p->n + 1, err);
        if (st)
            return st;
    }
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
    *r = (struct rows){f->rows,  f->n,    f->m, f->m * (size_t)f->n * sizeof *f->rows,
                       f->lines, f->lined};
    return r;
}

static hf_status check_rows(const hf_poset *p, const struct rows *f, const hf_verify_options *opt,
                            bool reference, unsigned rent, hf_verify_result *result, mpz_t out,
                            hf_error *err);

/* Whether check_by_dual applies: an in-forest that is not a forest (a chain or an antichain is
 * both, and already takes the forest path), d >= 3 (where forests have their own path), the
 * whole order (shards split the prefixes of this order, which the dual does not have), and a
 * reversed copy of the family within a quarter of the memory limit. */
static bool dual_applies(const hf_poset *p, const struct rows *f, const hf_verify_options *opt)
{
    uint64_t copy = (uint64_t)f->m * p->n * sizeof *f->rows;
    return (p->shape & HF_SHAPE_INFOREST) && !(p->shape & HF_SHAPE_FOREST) && opt->d >= 3 &&
           opt->shard_count <= 1 && p->n > 0 && f->m > 0 &&
           (!opt->memory_limit || copy + f->heap <= opt->memory_limit / 4);
}

/*
 * In-forests by duality. Reversing every schedule maps the linear extensions of an order onto
 * those of its dual (every relation reversed) and a tuple t1..td placed in that order onto
 * td..t1: t is admissible in the order iff its reverse is in the dual, and a schedule hits t iff
 * its reverse hits the reverse of t. So a family is d-hitting for an in-forest iff its reversed
 * schedules are d-hitting for the dual forest, and both leave the same number of tuples
 * uncovered; the forest check (lib/verify_forest.c, the pair matrices at d = 3) is much faster
 * than the in-forest one, which cuts prefix by prefix (about 8x on a 2,000-event random
 * recursive in-tree at d = 3, tests/bench/bench_verify). The witness is another matter: the
 * first uncovered tuple of the dual, reversed, is not the first of the order. So a count is the
 * dual's, a hitting answer is the dual's, and a family the dual finds not hitting is checked
 * again on the order itself for its witness (a failing check stops at its first uncovered
 * tuple, so this costs little next to a hitting one). *done tells whether the dual answered.
 */
static hf_status check_by_dual(const hf_poset *p, const struct rows *f,
                               const hf_verify_options *opt, unsigned rent,
                               hf_verify_result *result, mpz_t out, bool *done, hf_error *err)
{
    *done = false;
    hf_ctx *ctx = p->ctx;
    uint32_t n = p->n;
    hf_poset_builder *b = NULL;
    hf_poset *q = NULL;
    uint32_t *rev = hf_i_alloc_array(ctx, f->m * (size_t)n, sizeof *rev);
    hf_status st = rev ? hf_poset_builder_new(ctx, &b) : HF_ENOMEM;
    /* the dual keeps every id: events added in id order */
    for (uint32_t v = 0; v < n && !st; v++) {
        uint32_t id;
        st = hf_poset_builder_add_event(b, hf_i_name(p, v), &id);
    }
    for (uint32_t v = 0; v < n && !st; v++)
        for (size_t k = p->succ_off[v]; k < p->succ_off[v + 1] && !st; k++)
            st = hf_poset_builder_add_order(b, p->succ[k], v);
    if (st) {
        hf_poset_builder_free(b);
        hf_i_free(ctx, rev);
        return st == HF_ENOMEM
                   ? hf_i_fail(err, HF_ENOMEM, 0, 0,
                               "out of memory verifying a family of %zu schedules", f->m)
                   : hf_i_fail(err, st, 0, 0, "internal error: the dual order");
    }
    st = hf_poset_builder_finish(b, &q, err);
    hf_poset_builder_free(b);
    if (st) {
        hf_i_free(ctx, rev);
        return st;
    }
    for (size_t i = 0; i < f->m; i++) {
        const uint32_t *row = f->rows + i * (size_t)n;
        uint32_t *to = rev + i * (size_t)n;
        for (uint32_t j = 0; j < n; j++)
            to[j] = row[n - 1 - j];
    }
    struct rows rf = {rev, n, f->m, f->heap + f->m * (size_t)n * sizeof *rev, NULL, 0};
    if (result) {
        hf_verify_result r;
        st = check_rows(q, &rf, opt, false, rent, &r, NULL, err);
        if (!st && r.hitting) {
            *result = r;
            *done = true;
        }
    } else {
        st = check_rows(q, &rf, opt, false, rent, NULL, out, err);
        *done = !st;
    }
    hf_poset_free(q);
    hf_i_free(ctx, rev);
    return st;
}

/* The whole check: with result, the first uncovered tuple (hf_verify); otherwise the number of
 * uncovered tuples into out (hf_verify_count_uncovered). */
static hf_status check_rows(const hf_poset *p, const struct rows *f, const hf_verify_options *opt,
                            bool reference, unsigned rent, hf_verify_result *result, mpz_t out,
                            hf_error *err)
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
        struct rows pf = {pr.f->rows, pr.f->n, pr.f->m, 0, NULL, 0};
        pf.heap = f->heap + pr.f->m * (size_t)pr.f->n * sizeof *pr.f->rows;
        st = check_rows(pr.p, &pf, &sub, reference, rent, result, out, err);
        for (unsigned i = 0; result && i < HF_MAX_D && !st; i++)
            if (result->witness[i] != HF_NO_EVENT)
                result->witness[i] = pr.ids[result->witness[i]];
        hf_i_projection_free(p->ctx, &pr);
        return st;
    }
    if (!reference && dual_applies(p, f, opt)) {
        bool done;
        if ((st = check_by_dual(p, f, opt, rent, result, out, &done, err)) || done)
            return st;
    }
    struct ver v;
    if ((st = hf_i_ver_init(&v, p, f, opt, err)))
        return st;
    v.reference = reference;
    v.pair_rent = rent;
    if (!result) {
        mpz_set_ui(out, 0);
        if (v.d == 0) {
            /* no (focus) event */
        } else if (v.d == 1) {
            if (v.m == 0)
                mpz_set_ui(out, hf_i_ver_shard_events(&v, opt));
        } else {
            bool found;
            st = hf_i_ver_enumerate(&v, opt, false, NULL, out, &found, err);
        }
        hf_i_ver_free(&v);
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
        uint32_t first = hf_i_ver_shard_first_event(&v, opt);
        if (v.m == 0 && first != HF_NO_EVENT) {
            result->hitting = false;
            result->witness[0] = first;
        }
    } else {
        bool found;
        st = hf_i_ver_enumerate(&v, opt, true, result->witness, NULL, &found, err);
        result->hitting = !found;
    }
    hf_i_ver_free(&v);
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
    return check_rows(p, family_rows(f, &r), opt, reference, HF_I_PAIR_RENT, result, NULL, err);
}

hf_status hf_verify_count_uncovered(const hf_poset *p, const hf_family *f,
                                    const hf_verify_options *opt, mpz_t out, hf_error *err)
{
    return hf_i_verify_count_reference(p, f, opt, false, out, err);
}

hf_status hf_i_verify_count_reference(const hf_poset *p, const hf_family *f,
                                      const hf_verify_options *opt, bool reference, mpz_t out,
                                      hf_error *err)
{
    hf_i_error_clear(err);
    if (!out)
        return hf_i_fail(err, HF_EINVAL, 0, 0, "invalid argument");
    struct rows r;
    return check_rows(p, family_rows(f, &r), opt, reference, HF_I_PAIR_RENT, NULL, out, err);
}

hf_status hf_i_verify_rows(const hf_poset *p, const uint32_t *rows, uint32_t n, size_t m,
                           size_t rows_bytes, const size_t *lines, const hf_verify_options *opt,
                           hf_verify_result *result, mpz_t count, hf_error *err)
{
    struct rows r = {rows, n, m, rows_bytes, lines, lines ? m : 0};
    return check_rows(p, &r, opt, false, HF_I_PAIR_RENT, result, count, err);
}

hf_status hf_i_verify_rent(const hf_poset *p, const hf_family *f, const hf_verify_options *opt,
                           unsigned rent, hf_verify_result *result, mpz_t out, hf_error *err)
{
    hf_i_error_clear(err);
    if (!result && !out)
        return hf_i_fail(err, HF_EINVAL, 0, 0, "invalid argument");
    struct rows r;
    return check_rows(p, family_rows(f, &r), opt, false, rent, result, out, err);
}
