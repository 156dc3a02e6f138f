/* Incremental coverage bookkeeping shared by methods random and greedy: a bitset of the
 * admissible d-tuples not hit yet, updated one schedule at a time; and their seeded PRNG. */
#include <pthread.h>
#include <string.h>

#include "coverage.h"
#include "poset_i.h"

struct hf_i_coverage {
    hf_ctx *ctx;
    unsigned d; /* tuple length tracked: min(asked d, m) */
    uint32_t n, m;
    size_t W;         /* words per row */
    size_t rows;      /* m^(d-1) */
    uint32_t *local;  /* n: event -> local id or NONE */
    uint32_t *global; /* m: local id -> event */
    hf_word *bits;    /* rows * W: admissible and not hit yet */
    uint64_t remaining;
    uint32_t *seq;    /* m: scratch, the schedule's focus events in order (local ids) */
    hf_word *suf;     /* (m + 2) * W: scratch, suf[k] = the set seq[k..m-1]; one more set */
    hf_word *cols;    /* rows * W or NULL: the same set by (a_2..a_d), bits over a_1 */
    size_t tail_rows; /* m^(d-2): rows per value of a_1 */
    uint32_t len;     /* entries of seq being scanned: m, or fewer for a partial schedule */
    /* With columns on: the open tuples of each row and of each column (rows entries each), so
     * that empty ones are skipped; at d = 3 also, for each event b, the events a whose row
     * (a, b) is not empty (second, m sets of W words), and for each event x the events a next
     * to x in some open tuple: (x, a, *), (a, x, *), (*, x, a) or (*, a, x) (adj, likewise). */
    uint32_t *rcnt, *ccnt;
    hf_word *second, *adj;
    /* d = 3: pairs (a, b) whose row or column may have emptied during an add, as bit a of set
     * b (m sets of W words; only b's walk writes set b); adj is updated from them afterwards */
    hf_word *dirty;
    unsigned threads; /* threads of a d = 3 add (1 unless set) */
    hf_word *tpre;    /* threads * W: each thread's set of events before its position */
};

/* ---- coverage ---- */

/* Free the column copy and the open-tuple bookkeeping of d = 3 (all NULL after). */
static void drop_columns(hf_i_coverage *c)
{
    hf_i_free(c->ctx, c->cols);
    hf_i_free(c->ctx, c->rcnt);
    hf_i_free(c->ctx, c->ccnt);
    hf_i_free(c->ctx, c->second);
    hf_i_free(c->ctx, c->adj);
    hf_i_free(c->ctx, c->dirty);
    hf_i_free(c->ctx, c->tpre);
    c->cols = c->second = c->adj = c->dirty = c->tpre = NULL;
    c->rcnt = c->ccnt = NULL;
}

void hf_i_coverage_free(hf_i_coverage *c)
{
    if (!c)
        return;
    hf_i_free(c->ctx, c->local);
    hf_i_free(c->ctx, c->global);
    hf_i_free(c->ctx, c->bits);
    hf_i_free(c->ctx, c->seq);
    hf_i_free(c->ctx, c->suf);
    drop_columns(c);
    hf_i_free(c->ctx, c);
}

/* Fill the rows of every admissible prefix extending the current one (depth entries so far,
 * row index `idx`); allowed[depth] is the set of events that may come next. */
static void fill_rows(hf_i_coverage *c, const hf_word *below, hf_word *allowed, unsigned depth,
                      size_t idx)
{
    size_t W = c->W;
    const hf_word *cur = allowed + (size_t)depth * W;
    if (depth + 1 == c->d) {
        hf_word *row = c->bits + idx * W;
        for (size_t w = 0; w < W; w++) {
            row[w] = cur[w];
            c->remaining += hf_i_popcount(cur[w]);
        }
        return;
    }
    hf_word *next = allowed + (size_t)(depth + 1) * W;
    for (uint32_t a = 0; a < c->m; a++) {
        if (!hf_i_bit_test(cur, a))
            continue;
        /* a later entry may be neither a itself nor strictly below it */
        const hf_word *ba = below + (size_t)a * W;
        for (size_t w = 0; w < W; w++)
            next[w] = cur[w] & ~ba[w];
        hf_i_bit_clear(next, a);
        fill_rows(c, below, allowed, depth + 1, idx * c->m + a);
    }
}

/* Whether the d-tuples of m events fit the bit budget: m^(d-1) rows of ceil(m/64) words. */
static bool fits(uint64_t m, unsigned d)
{
    if (m == 0 || d == 0) /* nothing to track */
        return true;
    uint64_t rows = 1, words = hf_i_words(m);
    for (unsigned i = 1; i < d; i++) {
        if (rows > HF_I_COVERAGE_MAX_BITS / (64u * words))
            return false;
        rows *= m;
    }
    return rows <= HF_I_COVERAGE_MAX_BITS / (64u * words);
}

static hf_status too_large(hf_error *err, uint64_t m, unsigned d)
{
    return hf_i_fail(err, HF_ETOOLARGE, 0, 0,
                     "tracking the %u-tuples of %" PRIu64 " events needs %" PRIu64
                     "^%u bits, more than the limit of 2^33 bits (1 GiB); use fewer events "
                     "(a focus set) or a smaller d",
                     d, m, m, d);
}

hf_status hf_i_coverage_check_size(const hf_poset *p, unsigned d, const uint32_t *focus,
                                   size_t focus_count, hf_error *err)
{
    uint64_t m = focus && focus_count ? focus_count : p->n;
    if (fits(m, d < m ? d : (unsigned)m))
        return HF_OK;
    if (focus && focus_count) { /* repeated ids count once */
        hf_word *seen = hf_i_calloc(p->ctx, hf_i_words(p->n ? p->n : 1), sizeof *seen);
        if (!seen)
            return hf_i_fail(err, HF_ENOMEM, 0, 0, "out of memory");
        m = 0;
        for (size_t i = 0; i < focus_count; i++)
            if (focus[i] < p->n && !hf_i_bit_test(seen, focus[i])) {
                hf_i_bit_set(seen, focus[i]);
                m++;
            }
        hf_i_free(p->ctx, seen);
        if (fits(m, d < m ? d : (unsigned)m))
            return HF_OK;
    }
    return too_large(err, m, d < m ? d : (unsigned)m);
}

hf_status hf_i_coverage_new(const hf_poset *p, unsigned d, const uint32_t *focus,
                            size_t focus_count, hf_i_coverage **out, hf_error *err)
{
    *out = NULL;
    if (d < 1 || d > HF_I_COVERAGE_MAX_D)
        return hf_i_fail(err, HF_EINVAL, 0, 0, "coverage bookkeeping handles 1 <= d <= %u",
                         HF_I_COVERAGE_MAX_D);
    hf_ctx *ctx = p->ctx;
    uint32_t n = p->n;
    if (!p->tin && !p->closure)
        return hf_i_fail(err, HF_ETOOLARGE, 0, 0,
                         "orders of more than %u events that are not forests are not supported "
                         "by methods random and greedy (no closure is kept)",
                         HF_CLOSURE_MAX_EVENTS);
    hf_i_coverage *c = hf_i_calloc(ctx, 1, sizeof *c);
    if (!c)
        return hf_i_fail(err, HF_ENOMEM, 0, 0, "out of memory");
    c->ctx = ctx;
    c->n = n;
    c->local = hf_i_alloc_array(ctx, n ? n : 1, sizeof *c->local);
    if (!c->local)
        goto nomem;
    for (uint32_t v = 0; v < n; v++)
        c->local[v] = focus && focus_count ? NONE : 0;
    if (focus && focus_count) {
        for (size_t i = 0; i < focus_count; i++) {
            if (focus[i] >= n) {
                hf_i_coverage_free(c);
                return hf_i_fail(err, HF_EINVAL, 0, 0, "focus event id %" PRIu32 " out of range",
                                 focus[i]);
            }
            c->local[focus[i]] = 0;
        }
    }
    for (uint32_t v = 0; v < n; v++)
        if (c->local[v] != NONE)
            c->local[v] = c->m++;
    uint32_t m = c->m;
    c->d = d < m ? d : m;
    if (c->d == 0) { /* no events: nothing to hit */
        *out = c;
        return HF_OK;
    }
    c->W = hf_i_words(m);
    /* rows = m^(d-1), checked against the bit budget before any big allocation */
    uint64_t rows = 1;
    for (unsigned i = 1; i < c->d; i++)
        rows *= m;
    if (!fits(m, c->d)) {
        unsigned dd = c->d;
        hf_i_coverage_free(c);
        return too_large(err, m, dd);
    }
    c->rows = (size_t)rows;
    c->global = hf_i_alloc_array(ctx, m, sizeof *c->global);
    c->bits = hf_i_calloc(ctx, c->rows * c->W, sizeof *c->bits);
    c->seq = hf_i_alloc_array(ctx, m, sizeof *c->seq);
    c->suf = hf_i_alloc_array(ctx, (size_t)(m + 2) * c->W, sizeof *c->suf);
    hf_word *below = hf_i_calloc(ctx, (size_t)m * c->W, sizeof *below);
    hf_word *allowed = hf_i_calloc(ctx, (size_t)c->d * c->W, sizeof *allowed);
    if (!c->global || !c->bits || !c->seq || !c->suf || !below || !allowed) {
        hf_i_free(ctx, below);
        hf_i_free(ctx, allowed);
        goto nomem;
    }
    for (uint32_t v = 0; v < n; v++)
        if (c->local[v] != NONE)
            c->global[c->local[v]] = v;
    for (uint32_t a = 0; a < m; a++) {
        hf_i_bit_set(allowed, a);
        for (uint32_t b = 0; b < m; b++)
            if (hf_i_less(p, c->global[b], c->global[a]))
                hf_i_bit_set(below + (size_t)a * c->W, b);
    }
    fill_rows(c, below, allowed, 0, 0);
    hf_i_free(ctx, below);
    hf_i_free(ctx, allowed);
    *out = c;
    return HF_OK;
nomem:
    hf_i_coverage_free(c);
    return hf_i_fail(err, HF_ENOMEM, 0, 0, "out of memory");
}

unsigned hf_i_coverage_d(const hf_i_coverage *c) { return c->d; }
uint32_t hf_i_coverage_events(const hf_i_coverage *c) { return c->m; }
uint32_t hf_i_coverage_local(const hf_i_coverage *c, uint32_t v)
{
    return v < c->n ? c->local[v] : NONE;
}
uint64_t hf_i_coverage_remaining(const hf_i_coverage *c) { return c->remaining; }
size_t hf_i_coverage_row_words(const hf_i_coverage *c) { return c->W; }

const hf_word *hf_i_coverage_row(const hf_i_coverage *c, const uint32_t *prefix)
{
    size_t idx = 0;
    for (unsigned i = 0; i + 1 < c->d; i++)
        idx = idx * c->m + prefix[i];
    return c->bits + idx * c->W;
}

/* d = 3: events p and q are no longer next to each other in an open tuple once the rows and
 * columns of (p, q) and (q, p) are all empty. */
static void adj_check(hf_i_coverage *c, uint32_t p, uint32_t q)
{
    size_t pq = (size_t)p * c->m + q, qp = (size_t)q * c->m + p;
    if (c->rcnt[pq] || c->rcnt[qp] || c->ccnt[pq] || c->ccnt[qp])
        return;
    hf_i_bit_clear(c->adj + (size_t)p * c->W, q);
    hf_i_bit_clear(c->adj + (size_t)q * c->W, p);
}

/* Keep the column copy and the counts in step: the tuples (prefix idx, bits of word w of its
 * row) are hit. */
static void clear_cols(hf_i_coverage *c, size_t idx, size_t w, hf_word hit)
{
    size_t first = idx / c->tail_rows, mid = idx % c->tail_rows;
    hf_word bit = (hf_word)1 << (first % 64);
    c->rcnt[idx] -= hf_i_popcount(hit);
    while (hit) {
        size_t last = w * 64 + hf_i_ctz(hit);
        hit &= hit - 1;
        size_t col = mid * c->m + last;
        c->cols[col * c->W + first / 64] &= ~bit;
        if (--c->ccnt[col] == 0 && c->dirty)
            hf_i_bit_set(c->dirty + mid * c->W, last);
    }
    if (c->rcnt[idx] == 0 && c->second) {
        hf_i_bit_clear(c->second + mid * c->W, first);
        hf_i_bit_set(c->dirty + mid * c->W, first);
    }
}

/* Walk the ordered (d-1)-prefixes the schedule hits (positions from `start` on in seq), and
 * for each take its row's bits after the prefix's last position. */
static uint64_t walk(hf_i_coverage *c, unsigned depth, uint32_t start, size_t idx, bool mark)
{
    size_t W = c->W;
    uint64_t total = 0;
    if (depth + 1 == c->d) {
        if (c->rcnt && !c->rcnt[idx])
            return 0;
        hf_word *row = c->bits + idx * W;
        const hf_word *after = c->suf + (size_t)start * W;
        for (size_t w = 0; w < W; w++) {
            hf_word hit = row[w] & after[w];
            if (hit) {
                total += hf_i_popcount(hit);
                if (mark) {
                    row[w] &= ~hit;
                    if (c->cols)
                        clear_cols(c, idx, w, hit);
                }
            }
        }
        return total;
    }
    /* leave room for the entries still to come */
    for (uint32_t i = start; i + (c->d - 1 - depth) < c->len; i++)
        total += walk(c, depth + 1, i + 1, idx * c->m + c->seq[i], mark);
    return total;
}

/* walk at d = 3 with the columns on: for each second entry b (position j), only the events a
 * before it whose row (a, b) is not empty. Taking b in the outer loop keeps the column clears
 * of one step within b's columns. Positions j = first, first + step, ...: everything the step
 * of b writes (rows (*, b), columns (b, *), their counts, sets b of second and dirty) belongs
 * to b alone, so threads with different `first` never write the same word. */
static uint64_t walk3(hf_i_coverage *c, bool mark, uint32_t first, uint32_t step, hf_word *pre,
                      bool any)
{
    size_t W = c->W;
    uint64_t total = 0;
    memset(pre, 0, W * sizeof *pre);
    for (uint32_t j = 0; j + 1 < c->len; j++) {
        uint32_t b = c->seq[j];
        if (j % step != first) {
            hf_i_bit_set(pre, b);
            continue;
        }
        const hf_word *after = c->suf + (size_t)(j + 1) * W, *sec = c->second + (size_t)b * W;
        for (size_t v = 0; v < W; v++)
            for (hf_word as = pre[v] & sec[v]; as; as &= as - 1) {
                size_t a = v * 64 + hf_i_ctz(as), idx = a * c->m + b;
                hf_word *row = c->bits + idx * W;
                for (size_t w = 0; w < W; w++) {
                    hf_word hit = row[w] & after[w];
                    if (hit) {
                        total += hf_i_popcount(hit);
                        if (mark) {
                            row[w] &= ~hit;
                            clear_cols(c, idx, w, hit);
                        } else if (any) {
                            return total;
                        }
                    }
                }
            }
        hf_i_bit_set(pre, b);
    }
    return total;
}

typedef struct walk_job {
    hf_i_coverage *c;
    uint32_t first;
    uint64_t total;
} walk_job;

static void *walk_thread(void *arg)
{
    walk_job *j = arg;
    j->total =
        walk3(j->c, true, j->first, j->c->threads, j->c->tpre + (size_t)j->first * j->c->W, false);
    return NULL;
}

/* walk3 marking, on c->threads threads (a thread that cannot start leaves its share to the
 * calling one), then the adjacency of the pairs marked dirty. The same sets whatever the number
 * of threads. */
static uint64_t add3(hf_i_coverage *c)
{
    walk_job jobs[HF_I_COVERAGE_MAX_THREADS];
    pthread_t tid[HF_I_COVERAGE_MAX_THREADS];
    bool started[HF_I_COVERAGE_MAX_THREADS] = {false};
    unsigned t_count = c->threads;
    for (unsigned t = 0; t < t_count; t++)
        jobs[t] = (walk_job){c, t, 0};
    for (unsigned t = 1; t < t_count; t++)
        started[t] = pthread_create(&tid[t], NULL, walk_thread, &jobs[t]) == 0;
    walk_thread(&jobs[0]);
    uint64_t total = jobs[0].total;
    for (unsigned t = 1; t < t_count; t++) {
        if (started[t])
            pthread_join(tid[t], NULL);
        else
            walk_thread(&jobs[t]);
        total += jobs[t].total;
    }
    size_t W = c->W;
    for (uint32_t b = 0; b < c->m; b++)
        for (size_t v = 0; v < W; v++) {
            hf_word *dw = c->dirty + (size_t)b * W + v;
            for (hf_word q = *dw; q; q &= q - 1)
                adj_check(c, b, (uint32_t)(v * 64 + hf_i_ctz(q)));
            *dw = 0;
        }
    return total;
}

hf_status hf_i_coverage_threads(hf_i_coverage *c, unsigned threads, hf_error *err)
{
    if (!c->second)
        return HF_OK;
    if (threads == 0)
        threads = 1;
    if (threads > HF_I_COVERAGE_MAX_THREADS)
        threads = HF_I_COVERAGE_MAX_THREADS;
    hf_word *tpre = hf_i_alloc_array(c->ctx, (size_t)threads * (c->W ? c->W : 1), sizeof *tpre);
    if (!tpre)
        return hf_i_fail(err, HF_ENOMEM, 0, 0, "out of memory");
    hf_i_free(c->ctx, c->tpre);
    c->tpre = tpre;
    c->threads = threads;
    return HF_OK;
}

/* Count (and with mark, clear) the tuples hit by the focus events in the order c->seq; with
 * any (and not mark), a positive number as soon as one is found, when the walk allows. */
static uint64_t scan_seq(hf_i_coverage *c, uint32_t len, bool mark, bool any)
{
    size_t W = c->W;
    c->len = len;
    memset(c->suf + (size_t)len * W, 0, W * sizeof *c->suf);
    for (uint32_t i = len; i-- > 0;) {
        memcpy(c->suf + (size_t)i * W, c->suf + (size_t)(i + 1) * W, W * sizeof *c->suf);
        hf_i_bit_set(c->suf + (size_t)i * W, c->seq[i]);
    }
    uint64_t got = !c->second        ? walk(c, 0, 0, 0, mark)
                   : mark && c->tpre ? add3(c)
                                     : walk3(c, mark, 0, 1, c->suf + (size_t)(c->m + 1) * W, any);
    if (mark)
        c->remaining -= got;
    return got;
}

static uint64_t scan(hf_i_coverage *c, const uint32_t *schedule, bool mark)
{
    if (c->d == 0 || c->remaining == 0)
        return 0;
    uint32_t k = 0;
    for (uint32_t i = 0; i < c->n; i++)
        if (c->local[schedule[i]] != NONE)
            c->seq[k++] = c->local[schedule[i]];
    return scan_seq(c, c->m, mark, false);
}

static uint64_t scan_local(hf_i_coverage *c, const uint32_t *seq, bool mark, bool any)
{
    if (c->d == 0 || c->remaining == 0)
        return 0;
    memcpy(c->seq, seq, c->m * sizeof *c->seq);
    return scan_seq(c, c->m, mark, any);
}

uint64_t hf_i_coverage_add(hf_i_coverage *c, const uint32_t *schedule)
{
    return scan(c, schedule, true);
}

uint64_t hf_i_coverage_count_new(hf_i_coverage *c, const uint32_t *schedule)
{
    return scan(c, schedule, false);
}

uint64_t hf_i_coverage_add_local(hf_i_coverage *c, const uint32_t *seq)
{
    return scan_local(c, seq, true, false);
}

uint64_t hf_i_coverage_count_new_local(hf_i_coverage *c, const uint32_t *seq)
{
    return scan_local(c, seq, false, false);
}

bool hf_i_coverage_hits_local(hf_i_coverage *c, const uint32_t *seq)
{
    return scan_local(c, seq, false, true) > 0;
}

uint64_t hf_i_coverage_add_partial(hf_i_coverage *c, const uint32_t *events, uint32_t len)
{
    if (c->d == 0 || c->remaining == 0)
        return 0;
    uint32_t k = 0;
    for (uint32_t i = 0; i < len && k < c->m; i++)
        if (events[i] < c->n && c->local[events[i]] != NONE)
            c->seq[k++] = c->local[events[i]];
    return scan_seq(c, k, true, false);
}

hf_status hf_i_coverage_columns(hf_i_coverage *c, hf_error *err)
{
    if (c->cols || c->d < 2)
        return HF_OK;
    size_t W = c->W, m = c->m;
    c->cols = hf_i_calloc(c->ctx, c->rows * W, sizeof *c->cols);
    c->rcnt = hf_i_calloc(c->ctx, c->rows, sizeof *c->rcnt);
    c->ccnt = hf_i_calloc(c->ctx, c->rows, sizeof *c->ccnt);
    if (c->d == 3) {
        c->second = hf_i_calloc(c->ctx, m * W, sizeof *c->second);
        c->adj = hf_i_calloc(c->ctx, m * W, sizeof *c->adj);
        c->dirty = hf_i_calloc(c->ctx, m * W, sizeof *c->dirty);
        c->tpre = hf_i_alloc_array(c->ctx, W, sizeof *c->tpre);
        c->threads = 1;
    }
    if (!c->cols || !c->rcnt || !c->ccnt ||
        (c->d == 3 && (!c->second || !c->adj || !c->dirty || !c->tpre))) {
        drop_columns(c);
        return hf_i_fail(err, HF_ENOMEM, 0, 0, "out of memory");
    }
    c->tail_rows = c->rows / m;
    /* by the middle entries first: the bits set for one value of them stay within its m
     * columns */
    for (size_t mid = 0; mid < c->tail_rows; mid++)
        for (size_t first = 0; first < m; first++) {
            size_t r = first * c->tail_rows + mid;
            const hf_word *row = c->bits + r * W;
            for (size_t w = 0; w < W; w++)
                for (hf_word bits = row[w]; bits; bits &= bits - 1) {
                    size_t last = w * 64 + hf_i_ctz(bits);
                    hf_i_bit_set(c->cols + (mid * m + last) * W, first);
                    c->rcnt[r]++;
                    c->ccnt[mid * m + last]++;
                }
        }
    if (c->d == 3)
        for (size_t a = 0; a < m; a++)
            for (size_t b = 0; b < m; b++) {
                if (c->rcnt[a * m + b])
                    hf_i_bit_set(c->second + b * W, a);
                if (c->rcnt[a * m + b] || c->rcnt[b * m + a] || c->ccnt[a * m + b] ||
                    c->ccnt[b * m + a])
                    hf_i_bit_set(c->adj + a * W, b);
            }
    return HF_OK;
}

const hf_word *hf_i_coverage_adjacent(const hf_i_coverage *c, uint32_t x)
{
    return c->adj + (size_t)x * c->W;
}

const hf_word *hf_i_coverage_col(const hf_i_coverage *c, const uint32_t *tail)
{
    size_t idx = 0;
    for (unsigned i = 0; i + 1 < c->d; i++)
        idx = idx * c->m + tail[i];
    return c->cols + idx * c->W;
}

bool hf_i_coverage_open(const hf_i_coverage *c, const uint32_t *tuple)
{
    return hf_i_bit_test(hf_i_coverage_row(c, tuple), tuple[c->d - 1]);
}

bool hf_i_coverage_first(const hf_i_coverage *c, uint32_t *tuple)
{
    if (c->remaining == 0)
        return false;
    for (size_t r = 0; r < c->rows; r++) {
        const hf_word *row = c->bits + r * c->W;
        for (size_t w = 0; w < c->W; w++) {
            if (!row[w])
                continue;
            uint32_t y = (uint32_t)(w * 64);
            while (!((row[w] >> (y % 64)) & 1u))
                y++;
            size_t idx = r;
            for (unsigned i = c->d - 1; i-- > 0;) {
                tuple[i] = c->global[idx % c->m];
                idx /= c->m;
            }
            tuple[c->d - 1] = c->global[y];
            return true;
        }
    }
    return false;
}
