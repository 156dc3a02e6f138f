/* Family minimisation (hf_family_minimize): drop redundant schedules of a d-hitting family, then
 * replace schedules one at a time so that others become redundant (Murray-Colbourn). */
#include <stdlib.h>
#include <string.h>

#include "coverage.h"
#include "family_i.h"
#include "poset_i.h"
#include "rng.h"

/*
 * Bookkeeping. Every ordered d-tuple of focus events (local ids 0..k-1, in id order) has a
 * one-byte counter in a dense table indexed in base k: the number of live schedules hitting
 * it. Counters saturate at SAT, which then means "SAT or more": a saturated counter is never
 * incremented, and when a schedule hitting it leaves, the true number is recounted from the
 * schedules (rare: it takes SAT schedules hitting one tuple). Tuples that are not admissible
 * (or repeat an event) are hit by no schedule and stay at 0.
 * uniq[s] is the number of tuples whose counter is 1 and that schedule s hits: its essential
 * tuples. s is redundant iff uniq[s] == 0. A counter moving between 1 and 2 changes the uniq of
 * the one schedule that hits the tuple alone; that schedule is found by testing the live
 * schedules' positions (pos), O(m * d).
 * Removing a schedule only raises the other schedules' uniq, so one pass that drops every
 * schedule whose uniq is 0 at its turn leaves an irredundant family, whatever the order.
 * A replacement S -> S' leaves uniq of the slot unchanged: S' hits every essential tuple of S
 * (they are its precedence constraints), and every other tuple S' hits was already hit by some
 * schedule, so it ends with a counter of at least 2.
 */

#define SAT           255u
#define GREEDY_ONE_IN 4u

/* Step 1's sort key of a schedule. */
struct rank {
    uint64_t uniq;  /* essential tuples */
    uint64_t twice; /* tuples hit by exactly one other schedule */
    size_t slot;
};

typedef struct mz {
    const hf_poset *p;
    hf_ctx *ctx;
    uint32_t n;                       /* events */
    uint32_t k;                       /* focus events */
    unsigned d;                       /* tuple length: min(asked d, k) */
    size_t S;                         /* schedule slots (the input's schedules) */
    size_t W;                         /* words of a k-bit set */
    size_t stride[HF_MINIMIZE_MAX_D]; /* stride[i] = k^(d-1-i) */
    uint32_t *local;                  /* n: event -> local id, or NONE */
    uint32_t *global;                 /* k: local id -> event */
    uint32_t *rows;                   /* S * n: private copy of the schedules */
    uint32_t *seq;                    /* S * k: each schedule's focus events in order (local ids) */
    uint32_t *pos;                    /* S * k: position of each local id in seq */
    bool *live;                       /* S */
    uint64_t *uniq;                   /* S: essential tuples */
    struct rank *rank;                /* S: step 1's order */
    size_t *order;                    /* S: the live slots */
    size_t nlive;
    uint8_t *cnt; /* k^d counters */
    /* replacement scratch */
    uint32_t *indeg;  /* n: unplaced predecessors (order and constraints) */
    uint32_t *avail;  /* n: available events */
    uint32_t *score;  /* k */
    uint32_t *placed; /* k: focus events placed so far, in order */
    uint32_t *nrow;   /* n: the replacement */
    uint32_t *nseq;   /* k */
    uint32_t *npos;   /* k */
    uint32_t *opos;   /* k: positions of the replaced schedule */
    hf_word *cons;    /* k * W: essential precedence pairs (a, b): bit b of row a */
    hf_word *allowed; /* d * W: the admissibility walk */
    hf_i_rng rng;
    bool greedy; /* this attempt scores events (else a random linear extension) */
} mz;

/* What the walk over a schedule's tuples does with each tuple. */
enum op {
    OP_ADD,       /* count it */
    OP_UNIQ,      /* total the tuples with counter 1 */
    OP_DOUBLE,    /* total the tuples with counter 2 */
    OP_ESSENTIAL, /* counter 1: its consecutive pairs become constraints */
    OP_LEAVE,     /* the schedule left (not live): uncount, skipping tuples `other` hits */
    OP_ENTER      /* the schedule entered (live): count, skipping tuples `other` hits */
};

typedef struct walk {
    mz *z;
    const uint32_t *seq;   /* the schedule's focus events */
    size_t self;           /* its slot */
    const uint32_t *other; /* positions of a schedule whose tuples are skipped, or NULL */
    bool in_other;         /* the prefix so far is in `other`'s order */
    enum op op;
    uint64_t total;
    uint32_t t[HF_MINIMIZE_MAX_D];
} walk;

static void mz_free(mz *z)
{
    hf_ctx *ctx = z->ctx;
    hf_i_free(ctx, z->local);
    hf_i_free(ctx, z->global);
    hf_i_free(ctx, z->rows);
    hf_i_free(ctx, z->seq);
    hf_i_free(ctx, z->pos);
    hf_i_free(ctx, z->live);
    hf_i_free(ctx, z->uniq);
    hf_i_free(ctx, z->rank);
    hf_i_free(ctx, z->order);
    hf_i_free(ctx, z->cnt);
    hf_i_free(ctx, z->indeg);
    hf_i_free(ctx, z->avail);
    hf_i_free(ctx, z->score);
    hf_i_free(ctx, z->placed);
    hf_i_free(ctx, z->nrow);
    hf_i_free(ctx, z->nseq);
    hf_i_free(ctx, z->npos);
    hf_i_free(ctx, z->opos);
    hf_i_free(ctx, z->cons);
    hf_i_free(ctx, z->allowed);
}

static bool hits(const uint32_t *pos, const uint32_t *t, unsigned d)
{
    for (unsigned i = 0; i + 1 < d; i++)
        if (pos[t[i]] > pos[t[i + 1]])
            return false;
    return true;
}

/* The live schedule other than `self` that hits t (the counter says there is exactly one). */
static size_t owner(const mz *z, const uint32_t *t, size_t self)
{
    for (size_t s = 0; s < z->S; s++)
        if (s != self && z->live[s] && hits(z->pos + s * z->k, t, z->d))
            return s;
    return SIZE_MAX; /* unreachable while the counters are right */
}

static uint8_t recount(const mz *z, const uint32_t *t)
{
    unsigned c = 0;
    for (size_t s = 0; s < z->S && c < SAT; s++)
        c += z->live[s] && hits(z->pos + s * z->k, t, z->d);
    return (uint8_t)c;
}

/* Uncount or count one tuple that `other` does not hit. */
static void visit(walk *w, size_t idx)
{
    mz *z = w->z;
    uint8_t *c = z->cnt + idx;
    switch (w->op) {
    case OP_LEAVE:
        if (*c == SAT) {
            *c = recount(z, w->t);
        } else if (--*c == 1) {
            size_t o = owner(z, w->t, w->self);
            if (o != SIZE_MAX)
                z->uniq[o]++;
        }
        break;
    case OP_ENTER:
        if (*c == 1) {
            size_t o = owner(z, w->t, w->self);
            if (o != SIZE_MAX)
                z->uniq[o]--;
        }
        if (*c < SAT)
            ++*c;
        break;
    default:
        break;
    }
}

/* The last entry of every tuple the schedule hits with prefix t[0..d-2] (index `base`), taken
 * from positions `from` on. The counting operations get tight loops of their own. */
static void walk_last(walk *w, uint32_t from, size_t base)
{
    mz *z = w->z;
    const uint32_t *seq = w->seq;
    uint8_t *cnt = z->cnt + base;
    uint32_t k = z->k;
    uint64_t total = 0;
    switch (w->op) {
    case OP_ADD:
        for (uint32_t j = from; j < k; j++)
            cnt[seq[j]] += cnt[seq[j]] < SAT;
        break;
    case OP_UNIQ:
        for (uint32_t j = from; j < k; j++)
            total += cnt[seq[j]] == 1;
        break;
    case OP_DOUBLE:
        for (uint32_t j = from; j < k; j++)
            total += cnt[seq[j]] == 2;
        break;
    case OP_ESSENTIAL:
        for (uint32_t j = from; j < k; j++)
            if (cnt[seq[j]] == 1) {
                w->t[z->d - 1] = seq[j];
                for (unsigned i = 0; i + 1 < z->d; i++)
                    hf_i_bit_set(z->cons + (size_t)w->t[i] * z->W, w->t[i + 1]);
            }
        break;
    default: {
        /* `other` hits the tuple iff the prefix is in its order and the last entry comes after
         * the prefix's last one there */
        const uint32_t *o = w->other;
        uint64_t skip_from = UINT64_MAX;
        if (o && w->in_other)
            skip_from = z->d == 1 ? 0 : (uint64_t)o[w->t[z->d - 2]] + 1;
        /* the common counters change without touching any uniq */
        uint8_t slow = w->op == OP_LEAVE ? 2 : 1;
        int step = w->op == OP_LEAVE ? -1 : 1;
        for (uint32_t j = from; j < k; j++) {
            uint32_t y = seq[j];
            if (o && o[y] >= skip_from)
                continue;
            if (cnt[y] != slow && cnt[y] != SAT) {
                cnt[y] = (uint8_t)(cnt[y] + step);
                continue;
            }
            w->t[z->d - 1] = y;
            visit(w, base + y);
        }
    }
    }
    w->total += total;
}

static void walk_rec(walk *w, unsigned depth, uint32_t from, size_t base)
{
    mz *z = w->z;
    if (depth + 1 == z->d) {
        walk_last(w, from, base);
        return;
    }
    bool in = w->in_other;
    /* leave room for the entries still to come */
    for (uint32_t i = from; i + (z->d - 1 - depth) < z->k; i++) {
        uint32_t a = w->seq[i];
        w->t[depth] = a;
        w->in_other = in && w->other && (depth == 0 || w->other[w->t[depth - 1]] < w->other[a]);
        walk_rec(w, depth + 1, i + 1, base + (size_t)a * z->stride[depth]);
    }
    w->in_other = in;
}

static uint64_t walk_schedule(mz *z, size_t slot, const uint32_t *seq, enum op op,
                              const uint32_t *other)
{
    walk w = {.z = z, .seq = seq, .self = slot, .other = other, .in_other = true, .op = op};
    if (z->d > 0)
        walk_rec(&w, 0, 0, 0);
    return w.total;
}

static void set_schedule(mz *z, size_t s, const uint32_t *row)
{
    uint32_t *seq = z->seq + s * z->k, *pos = z->pos + s * z->k, j = 0;
    memcpy(z->rows + s * z->n, row, z->n * sizeof *row);
    for (uint32_t i = 0; i < z->n; i++) {
        uint32_t l = z->local[row[i]];
        if (l != NONE) {
            pos[l] = j;
            seq[j++] = l;
        }
    }
}

static void drop(mz *z, size_t s)
{
    z->live[s] = false;
    z->nlive--;
    walk_schedule(z, s, z->seq + s * z->k, OP_LEAVE, NULL);
}

/* The first admissible tuple (lexicographic in local ids, so in event ids) with counter 0.
 * z->cons holds below[a] = {b : b < a} during this walk. */
static bool first_uncovered(mz *z, unsigned depth, size_t base, uint32_t *t)
{
    size_t W = z->W;
    const hf_word *cur = z->allowed + (size_t)depth * W;
    for (size_t w = 0; w < W; w++) {
        hf_word bits = cur[w];
        while (bits) {
            uint32_t a = (uint32_t)(w * 64 + hf_i_ctz(bits));
            bits &= bits - 1;
            t[depth] = a;
            if (depth + 1 == z->d) {
                if (z->cnt[base + a] == 0)
                    return true;
                continue;
            }
            /* a later entry may be neither a itself nor strictly below it */
            hf_word *next = z->allowed + (size_t)(depth + 1) * W;
            const hf_word *ba = z->cons + (size_t)a * W;
            for (size_t x = 0; x < W; x++)
                next[x] = cur[x] & ~ba[x];
            hf_i_bit_clear(next, a);
            if (first_uncovered(z, depth + 1, base + (size_t)a * z->stride[depth], t))
                return true;
        }
    }
    return false;
}

/* Credit every unplaced y with the tuples (P, x, y) hit exactly once by a schedule other than
 * the one being replaced, for every ordered (d-2)-subsequence P of the placed focus events:
 * placing y next hits them. ps are the replaced schedule's positions; `in` says whether P so
 * far is in its order, `last` the position of P's last entry there. */
static void credit(mz *z, const uint32_t *ps, unsigned depth, uint32_t from, uint32_t t,
                   size_t base, bool in, uint32_t last, uint32_t x)
{
    if (depth + 2 == z->d) {
        in = in && (depth == 0 || last < ps[x]);
        /* the replaced schedule hits (P, x, y) iff P, x are in its order and y comes after x:
         * its own hit does not count */
        uint32_t px = in ? ps[x] : UINT32_MAX;
        const uint8_t *row = z->cnt + base + (size_t)x * z->stride[depth];
        uint32_t *score = z->score;
        for (uint32_t y = 0; y < z->k; y++)
            score[y] += (uint32_t)((int)row[y] - (int)(ps[y] > px) == 1);
        return;
    }
    for (uint32_t i = from; i < t; i++) {
        uint32_t a = z->placed[i];
        bool in2 = in && (depth == 0 || last < ps[a]);
        credit(z, ps, depth + 1, i + 1, t, base + (size_t)a * z->stride[depth], in2, ps[a], x);
    }
}

/* Build the replacement of schedule `slot` into nrow, nseq, npos: a linear extension of the
 * order plus the constraints in cons, greedy on the scores. */
static void build(mz *z, size_t slot)
{
    const hf_poset *p = z->p;
    const uint32_t *ps = z->pos + slot * z->k;
    uint32_t navail = 0, t = 0;
    for (uint32_t v = 0; v < z->n; v++)
        z->indeg[v] = (uint32_t)(p->pred_off[v + 1] - p->pred_off[v]);
    for (uint32_t a = 0; a < z->k; a++) {
        const hf_word *row = z->cons + (size_t)a * z->W;
        for (size_t w = 0; w < z->W; w++)
            for (hf_word bits = row[w]; bits; bits &= bits - 1)
                z->indeg[z->global[w * 64 + hf_i_ctz(bits)]]++;
    }
    for (uint32_t v = 0; v < z->n; v++)
        if (!z->indeg[v])
            z->avail[navail++] = v;
    memset(z->score, 0, z->k * sizeof *z->score);
    for (uint32_t step = 0; step < z->n; step++) {
        uint32_t pick = NONE, ties = 0, top = 0;
        for (uint32_t i = 0; i < navail; i++) {
            uint32_t l = z->local[z->avail[i]];
            if (l == NONE) { /* hits nothing; placing it early only frees its successors */
                pick = i;
                break;
            }
            uint32_t s = z->greedy ? z->score[l] : 0;
            if (ties == 0 || s > top) {
                top = s;
                pick = i;
                ties = 1;
            } else if (s == top && hf_i_rng_below(&z->rng, ++ties) == 0) {
                pick = i; /* reservoir: each tied event equally likely */
            }
        }
        uint32_t x = z->avail[pick];
        z->avail[pick] = z->avail[--navail];
        z->nrow[step] = x;
        for (size_t i = p->succ_off[x]; i < p->succ_off[x + 1]; i++)
            if (--z->indeg[p->succ[i]] == 0)
                z->avail[navail++] = p->succ[i];
        uint32_t lx = z->local[x];
        if (lx == NONE)
            continue;
        const hf_word *row = z->cons + (size_t)lx * z->W;
        for (size_t w = 0; w < z->W; w++)
            for (hf_word bits = row[w]; bits; bits &= bits - 1) {
                uint32_t v = z->global[w * 64 + hf_i_ctz(bits)];
                if (--z->indeg[v] == 0)
                    z->avail[navail++] = v;
            }
        if (z->greedy && z->d >= 2)
            credit(z, ps, 0, 0, t, 0, true, 0, lx);
        z->npos[lx] = t;
        z->nseq[t] = lx;
        z->placed[t++] = lx;
    }
}

/* One attempt of step 2 on schedule `slot`. The replacement is greedy in one attempt of
 * GREEDY_ONE_IN and a random linear extension (of the order plus the constraints) otherwise:
 * on antichains and trees (d = 3) the random ones alone reached families as small or smaller
 * than the greedy ones alone, which fall into local optima when started far from one; the
 * greedy ones still help as an occasional push. */
static void replace(mz *z, size_t slot)
{
    uint32_t k = z->k;
    z->greedy = hf_i_rng_below(&z->rng, GREEDY_ONE_IN) == 0;
    memset(z->cons, 0, (size_t)k * z->W * sizeof *z->cons);
    walk_schedule(z, slot, z->seq + slot * k, OP_ESSENTIAL, NULL);
    build(z, slot);
    if (memcmp(z->nseq, z->seq + slot * k, k * sizeof *z->nseq) == 0)
        return; /* the same order of the focus events: nothing changes */
    memcpy(z->opos, z->pos + slot * k, k * sizeof *z->opos);
    z->live[slot] = false;
    walk_schedule(z, slot, z->seq + slot * k, OP_LEAVE, z->npos);
    set_schedule(z, slot, z->nrow);
    z->live[slot] = true;
    walk_schedule(z, slot, z->seq + slot * k, OP_ENTER, z->opos);
    for (size_t s = 0; s < z->S; s++)
        if (z->live[s] && z->uniq[s] == 0 && z->nlive > 1)
            drop(z, s);
}

/* Step 1's order: fewest essential tuples, then fewest tuples hit by exactly one other
 * schedule (dropping it makes the fewest new essential tuples), then later slots first. */
static int rank_cmp(const void *a, const void *b)
{
    const struct rank *x = a, *y = b;
    if (x->uniq != y->uniq)
        return x->uniq < y->uniq ? -1 : 1;
    if (x->twice != y->twice)
        return x->twice < y->twice ? -1 : 1;
    return (x->slot < y->slot) - (x->slot > y->slot);
}

void hf_minimize_options_init(hf_minimize_options *o)
{
    if (!o)
        return;
    memset(o, 0, sizeof *o);
    o->d = 2;
}

static hf_status check_args(const hf_poset *p, const hf_family *f, const hf_minimize_options *o,
                            hf_error *err)
{
    if (!p || !f || !o)
        return hf_i_fail(err, HF_EINVAL, 0, 0, "invalid argument");
    if (o->d < 1 || o->d > HF_MAX_D)
        return hf_i_fail(err, HF_EINVAL, 0, 0, "d must be between 1 and %u, got %u", HF_MAX_D,
                         o->d);
    if (f->n != p->n)
        return hf_i_fail(err, HF_EMISMATCH, 0, 0,
                         "family has %" PRIu32 " events, order has %" PRIu32, f->n, p->n);
    if (o->focus)
        for (size_t i = 0; i < o->focus_count; i++)
            if (o->focus[i] >= p->n)
                return hf_i_fail(err, HF_EINVAL, 0, 0,
                                 "focus event id %" PRIu32 " out of range (the order has %" PRIu32
                                 " events)",
                                 o->focus[i], p->n);
    for (size_t i = 0; i < f->m && p->n; i++) {
        hf_status st = hf_i_schedule_check(p, f->rows + i * (size_t)p->n, i, 0, err);
        /* as hf_verify: the line of a schedule read from text goes to err->line only */
        if (st == HF_ESCHEDULE && err && i < f->lined)
            err->line = f->lines[i] > INT_MAX ? INT_MAX : (int)f->lines[i];
        if (st)
            return st;
    }
    return HF_OK;
}

/* Local ids, d, the table's size check and every allocation. */
static hf_status setup(mz *z, const hf_minimize_options *o, hf_error *err)
{
    hf_ctx *ctx = z->ctx;
    uint32_t n = z->n;
    size_t n1 = n ? n : 1;
    z->local = hf_i_alloc_array(ctx, n1, sizeof *z->local);
    if (!z->local)
        return hf_i_fail(err, HF_ENOMEM, 0, 0, "out of memory");
    bool some = o->focus && o->focus_count;
    for (uint32_t v = 0; v < n; v++)
        z->local[v] = some ? NONE : 0;
    for (size_t i = 0; some && i < o->focus_count; i++)
        z->local[o->focus[i]] = 0;
    for (uint32_t v = 0; v < n; v++)
        if (z->local[v] != NONE)
            z->local[v] = z->k++;
    uint32_t k = z->k;
    z->d = o->d < k ? o->d : k;
    if (z->d > HF_MINIMIZE_MAX_D)
        return hf_i_fail(err, HF_EUNSUPPORTED, 0, 0,
                         "minimising keeps a counter per %u-tuple; it handles d <= %u", z->d,
                         HF_MINIMIZE_MAX_D);
    if (k > 1 && !z->p->tin && !z->p->closure)
        return hf_i_fail(err, HF_ETOOLARGE, 0, 0,
                         "minimising needs a forest, an in-forest or an order of at most %u "
                         "events",
                         HF_CLOSURE_MAX_EVENTS);
    uint64_t table = 1;
    for (unsigned i = 0; i < z->d; i++) {
        if (table > HF_MINIMIZE_MAX_TABLE / (k ? k : 1))
            return hf_i_fail(err, HF_ETOOLARGE, 0, 0,
                             "minimising %u-tuples of %" PRIu32 " events needs %" PRIu32
                             "^%u bytes of counters, more than the limit of 2^31 (2 GiB); use "
                             "a focus set or a smaller d",
                             z->d, k, k, z->d);
        table *= k;
    }
    for (unsigned i = 0; i < z->d; i++) {
        size_t s = 1;
        for (unsigned j = i + 1; j < z->d; j++)
            s *= k;
        z->stride[i] = s;
    }
    z->W = hf_i_words(k);
    size_t S = z->S, S1 = S ? S : 1, k1 = k ? k : 1, W1 = z->W ? z->W : 1;
    z->global = hf_i_alloc_array(ctx, k1, sizeof *z->global);
    z->rows = hf_i_alloc_array(ctx, S1, n1 * sizeof *z->rows);
    z->seq = hf_i_alloc_array(ctx, S1, k1 * sizeof *z->seq);
    z->pos = hf_i_alloc_array(ctx, S1, k1 * sizeof *z->pos);
    z->live = hf_i_calloc(ctx, S1, sizeof *z->live);
    z->uniq = hf_i_calloc(ctx, S1, sizeof *z->uniq);
    z->rank = hf_i_alloc_array(ctx, S1, sizeof *z->rank);
    z->order = hf_i_alloc_array(ctx, S1, sizeof *z->order);
    z->cnt = hf_i_calloc(ctx, table ? (size_t)table : 1, 1);
    z->indeg = hf_i_alloc_array(ctx, n1, sizeof *z->indeg);
    z->avail = hf_i_alloc_array(ctx, n1, sizeof *z->avail);
    z->score = hf_i_alloc_array(ctx, k1, sizeof *z->score);
    z->placed = hf_i_alloc_array(ctx, k1, sizeof *z->placed);
    z->nrow = hf_i_alloc_array(ctx, n1, sizeof *z->nrow);
    z->nseq = hf_i_alloc_array(ctx, k1, sizeof *z->nseq);
    z->npos = hf_i_alloc_array(ctx, k1, sizeof *z->npos);
    z->opos = hf_i_alloc_array(ctx, k1, sizeof *z->opos);
    z->cons = hf_i_calloc(ctx, k1, W1 * sizeof *z->cons);
    z->allowed = hf_i_calloc(ctx, (size_t)(z->d ? z->d : 1), W1 * sizeof *z->allowed);
    if (!z->global || !z->rows || !z->seq || !z->pos || !z->live || !z->uniq || !z->rank ||
        !z->order || !z->cnt || !z->indeg || !z->avail || !z->score || !z->placed || !z->nrow ||
        !z->nseq || !z->npos || !z->opos || !z->cons || !z->allowed)
        return hf_i_fail(err, HF_ENOMEM, 0, 0, "out of memory");
    for (uint32_t v = 0; v < n; v++)
        if (z->local[v] != NONE)
            z->global[z->local[v]] = v;
    return HF_OK;
}

/* The family is d-hitting iff no admissible tuple has counter 0. */
static hf_status check_hitting(mz *z, hf_minimize_result *r, hf_error *err)
{
    if (z->d == 0)
        return HF_OK;
    size_t W = z->W;
    for (uint32_t a = 0; a < z->k; a++) {
        hf_i_bit_set(z->allowed, a);
        for (uint32_t b = 0; b < z->k; b++)
            if (hf_i_less(z->p, z->global[b], z->global[a]))
                hf_i_bit_set(z->cons + (size_t)a * W, b);
    }
    uint32_t t[HF_MINIMIZE_MAX_D];
    bool found = first_uncovered(z, 0, 0, t);
    memset(z->cons, 0, (size_t)z->k * W * sizeof *z->cons);
    if (!found)
        return HF_OK;
    char text[200];
    size_t used = 0;
    text[0] = '\0';
    for (unsigned i = 0; i < z->d; i++) {
        char q[96];
        r->witness[i] = z->global[t[i]];
        int w = snprintf(text + used, sizeof text - used, "%s%s", i ? " before " : "",
                         hf_i_name_quote(hf_i_name(z->p, r->witness[i]), q, sizeof q));
        if (w > 0)
            used += (size_t)w < sizeof text - used ? (size_t)w : sizeof text - used - 1;
    }
    return hf_i_fail(err, HF_EMISMATCH, 0, 0, "the family is not %u-hitting: no schedule orders %s",
                     z->d, text);
}

hf_status hf_family_minimize(const hf_poset *p, hf_family *f, const hf_minimize_options *o,
                             hf_minimize_result *r, hf_error *err)
{
    hf_minimize_result scratch;
    if (!r)
        r = &scratch;
    memset(r, 0, sizeof *r);
    hf_status st = check_args(p, f, o, err);
    if (st)
        return st;
    mz z;
    memset(&z, 0, sizeof z);
    z.p = p;
    z.ctx = p->ctx;
    z.n = p->n;
    z.S = f->m;
    r->before = f->m;
    if ((st = setup(&z, o, err)))
        goto out;
    r->d = z.d;
    hf_i_rng_seed(&z.rng, o->seed);
    for (size_t s = 0; s < z.S; s++) {
        set_schedule(&z, s, z.n ? f->rows + s * z.n : z.rows);
        z.live[s] = true;
        walk_schedule(&z, s, z.seq + s * z.k, OP_ADD, NULL);
    }
    z.nlive = z.S;
    if ((st = check_hitting(&z, r, err)))
        goto out;

    /* Step 1: drop redundant schedules. */
    for (size_t s = 0; s < z.S; s++) {
        z.uniq[s] = walk_schedule(&z, s, z.seq + s * z.k, OP_UNIQ, NULL);
        z.rank[s].uniq = z.uniq[s];
        z.rank[s].twice = walk_schedule(&z, s, z.seq + s * z.k, OP_DOUBLE, NULL);
        z.rank[s].slot = s;
    }
    if (z.S > 1)
        qsort(z.rank, z.S, sizeof *z.rank, rank_cmp);
    for (size_t i = 0; i < z.S; i++) {
        size_t s = z.rank[i].slot;
        if (z.uniq[s] == 0 && (z.nlive > 1 || z.d == 0))
            drop(&z, s);
    }
    r->after_drop = z.nlive;

    /* Step 2: replacements. */
    uint64_t rounds = o->rounds;
    if (!rounds) {
        /* tuples per schedule, C(k, d), bounds the work of an attempt */
        uint64_t T = 1;
        for (unsigned i = 0; i < z.d; i++)
            T = T * (z.k - i) / (i + 1);
        uint64_t cap = HF_MINIMIZE_DEFAULT_WORK / (T ? T : 1);
        rounds = (uint64_t)HF_MINIMIZE_DEFAULT_ROUNDS * z.nlive;
        if (rounds > cap)
            rounds = cap > z.nlive ? cap : z.nlive;
    }
    while (!o->drop_only && r->rounds_run < rounds && z.nlive > 1 && z.d >= 2) {
        size_t live = 0;
        for (size_t s = 0; s < z.S; s++)
            if (z.live[s])
                z.order[live++] = s;
        replace(&z, z.order[hf_i_rng_below(&z.rng, live)]);
        r->rounds_run++;
        /* stopped here, the family is left as it was on input */
        if ((st = hf_i_progress(z.ctx, "minimize", r->rounds_run, rounds, err)))
            goto out;
    }

    /* Nothing can fail from here on: write the survivors back in their order. */
    size_t m = 0;
    for (size_t s = 0; s < z.S; s++)
        if (z.live[s]) {
            if (z.n)
                memcpy(f->rows + m * z.n, z.rows + s * z.n, z.n * sizeof *z.rows);
            m++;
        }
    f->m = m;
    f->lined = 0; /* replacements were never read from any line */
    r->after = m;
out:
    mz_free(&z);
    return st;
}
