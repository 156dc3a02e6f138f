/* Method greedy, local search (lib/gen_greedy.c builds the family first). With a hit count
 * per tuple (one byte each) for the family: schedules hitting no tuple alone are dropped; then,
 * until a deterministic work budget runs out, LS_FAILS repairs in a row fail, or the counting bound
 * ceil(admissible tuples / C(m, d)) is reached: drop the schedule hitting the fewest tuples alone
 * and repair. A repair step draws an uncovered tuple, and over every schedule and every entry of
 * the tuple considers the shortest move of that entry (take it out, put it back elsewhere, never
 * past an event it is ordered with) that makes the schedule hit the tuple; the move that leaves the
 * fewest tuples uncovered is made unless it is tabu (that event was moved in that schedule within
 * the last LS_TENURE..2*LS_TENURE steps; allowed anyway when it reaches a new best). A failed
 * repair restores the last complete family and drops another schedule (the next fewest alone-hit).
 * The work budgets count tuple order changes examined, never time. Two regimes:
 *  - dense, while m^d <= LS_MAX_CELLS (m <= 256 at d = 3, m <= 64 at d = 4): a count for
 *    every tuple code (m^d bytes plus m^d bits); a move across j events examines
 *    j * C(m-2, d-2) tuples; LS_TOTAL_WORK in all. At d = 3 a move is evaluated by 5 j
 *    bitset ANDs of m bits instead (lib/gen_greedy_fast.c: the tuples at count 1 and 0 by rows,
 *    columns and middles, 6 m^3 bits, and per schedule the events before each position,
 *    (m + 1) m bits), counted as the same work, so the family is the same.
 *  - tail, beyond: the schedules up to the first one after which at most TAIL_MAX tuples were
 *    left open are frozen; those open tuples are listed (indexed by every ordered pair of their
 *    events, d(d-1) entries each) and the later schedules are searched with a count for each
 *    listed tuple only; a move across j events examines the listed tuples with x and one of
 *    them; LS_TAIL_WORK in all. About 40 bytes per listed tuple plus 8 m^2 bytes of index,
 *    after the bookkeeping of the rounds is rebuilt for the frozen schedules (m^d bits); only
 *    while m^2 <= TAIL_MAX_PAIRS (which limits d = 2 only).
 * Both need the family to have at most LS_MAX_ROWS schedules (counts are bytes).
 * When the tuples to hit are all those of the order (no focus set), the dense search also stops
 * at the order's lower bound known without solving (order_floor): no repair can succeed below
 * it, so stopping there saves the failed repairs (most of the time on small orders) and leaves
 * the family as it would be. */
#include <string.h>

#include "gen_greedy_ls.h"
#include "hitfam/count.h"
#include "poset_i.h"

static uint32_t code_of(const greedy *g, const uint32_t *t)
{
    uint32_t c = 0;
    for (unsigned i = 0; i < g->d; i++)
        c = c * g->m + t[i];
    return c;
}

static hf_status open_push(greedy *g, ls *L, uint32_t code)
{
    if (hf_i_bit_test(L->listed, code))
        return HF_OK;
    if (HF_I_GROW(g->ctx, L->open, &L->cap, L->nopen + 1))
        return HF_ENOMEM;
    L->open[L->nopen++] = code;
    hf_i_bit_set(L->listed, code);
    return HF_OK;
}

enum { HITS_ADD, HITS_SUB, HITS_UNIQUE };

static hf_status count_hit(greedy *g, ls *L, uint32_t c, int mode, uint64_t *out);

/* Every tuple schedule r hits, in position order: add, remove (pushing tuples left open) or
 * count those hit by r alone. */
static hf_status hits_rec(greedy *g, ls *L, const uint32_t *row, int mode, uint32_t *t,
                          unsigned depth, uint32_t from, uint64_t *out)
{
    if (depth == g->d)
        return count_hit(g, L, code_of(g, t), mode, out);
    for (uint32_t i = from; i + (g->d - depth) <= g->m; i++) {
        t[depth] = row[i];
        if (hits_rec(g, L, row, mode, t, depth + 1, i + 1, out))
            return HF_ENOMEM;
    }
    return HF_OK;
}

static hf_status count_hit(greedy *g, ls *L, uint32_t c, int mode, uint64_t *out)
{
    if (mode == HITS_ADD) {
        fast_count(g, L, c, L->cnt[c], L->cnt[c] + 1u);
        if (L->cnt[c]++ == 0)
            L->uncovered--;
    } else if (mode == HITS_SUB) {
        fast_count(g, L, c, L->cnt[c], L->cnt[c] - 1u);
        if (--L->cnt[c] == 0) {
            L->uncovered++;
            return open_push(g, L, c);
        }
    } else if (L->cnt[c] == 1) {
        ++*out;
    }
    return HF_OK;
}

static bool hit_in(const greedy *g, const uint32_t *pos, const uint32_t *t)
{
    for (unsigned j = 1; j < g->d; j++)
        if (pos[t[j - 1]] > pos[t[j]])
            return false;
    return true;
}

/* (sparse: the positions of schedule r must be current) */
static hf_status hits(greedy *g, ls *L, uint32_t r, int mode, uint64_t *out)
{
    if (L->sparse) {
        const uint32_t *pos = L->pos + (size_t)r * g->m;
        for (size_t i = 0; i < L->R; i++)
            if (hit_in(g, pos, L->tup + i * g->d) && count_hit(g, L, (uint32_t)i, mode, out))
                return HF_ENOMEM;
        return HF_OK;
    }
    uint32_t t[HF_I_COVERAGE_MAX_D];
    return hits_rec(g, L, L->rows + (size_t)r * g->m, mode, t, 0, 0, out);
}

static void set_pos(greedy *g, ls *L, uint32_t r)
{
    const uint32_t *row = L->rows + (size_t)r * g->m;
    for (uint32_t i = 0; i < g->m; i++)
        L->pos[(size_t)r * g->m + row[i]] = i;
    hf_i_greedy_fast_pre(g, L, r, 0);
}

/* The d events e[] with sort keys key[] (distinct): their tuple code in key order. */
static inline uint32_t sorted_code(const greedy *g, const uint32_t *e, const int64_t *key)
{
    if (g->d == 3) { /* three comparisons */
        uint32_t m = g->m, a = e[0], b = e[1], c = e[2];
        int64_t ka = key[0], kb = key[1], kc = key[2];
        if (ka > kb) {
            uint32_t t = a;
            int64_t k = ka;
            a = b, ka = kb, b = t, kb = k;
        }
        if (kb > kc) {
            uint32_t t = b;
            int64_t k = kb;
            b = c, kb = kc, c = t, kc = k;
            if (ka > kb) {
                t = a, a = b, b = t;
            }
        }
        return (a * m + b) * m + c;
    }
    uint32_t t[HF_I_COVERAGE_MAX_D];
    int64_t k[HF_I_COVERAGE_MAX_D];
    for (unsigned i = 0; i < g->d; i++) {
        unsigned j = i;
        for (; j > 0 && k[j - 1] > key[i]; j--) {
            k[j] = k[j - 1];
            t[j] = t[j - 1];
        }
        k[j] = key[i];
        t[j] = e[i];
    }
    return code_of(g, t);
}

/* The change in open tuples when making move mv (apply: make it). Only tuples of x = the moved
 * event and some event it passes change order; each such set of events is visited once: y is
 * the passed event nearest x's old position among those in the set. */
static int64_t move_eval(greedy *g, ls *L, move mv, bool apply)
{
    uint32_t m = g->m, p = mv.p, q = mv.q;
    uint32_t *row = L->rows + (size_t)mv.r * m;
    uint32_t f0, f1;
    int64_t xnew;
    if (q > p) {
        f0 = p + 1;
        f1 = q;
        xnew = 2 * (int64_t)q + 1;
    } else {
        f0 = q;
        f1 = p - 1;
        xnew = 2 * (int64_t)q - 1;
    }
    int64_t delta = 0;
    if (L->fast && !apply)
        return hf_i_greedy_move_eval_fast(g, L, mv);
    if (L->sparse) {
        /* the listed tuples with x and a passed event y, each once: skip those with another
         * passed event nearer to x's old position than y */
        const uint32_t *pos = L->pos + (size_t)mv.r * m, x = row[p];
        for (uint32_t i = 0; i <= f1 - f0; i++) {
            uint32_t fy = q > p ? f0 + i : f1 - i, y = row[fy];
            size_t pair = (size_t)x * m + y;
            for (size_t k = L->off[pair]; k < L->off[pair + 1]; k++) {
                uint32_t ti = L->inc[k];
                const uint32_t *t = L->tup + (size_t)ti * g->d;
                bool was = true, now = true, twice = false;
                int64_t po = INT64_MIN, pn = INT64_MIN;
                for (unsigned j = 0; j < g->d; j++) {
                    uint32_t pz = pos[t[j]];
                    if (t[j] != x && t[j] != y && pz >= f0 && pz <= f1 &&
                        (q > p ? pz < fy : pz > fy))
                        twice = true;
                    int64_t ko = 2 * (int64_t)pz, kn = t[j] == x ? xnew : ko;
                    was = was && ko > po;
                    now = now && kn > pn;
                    po = ko;
                    pn = kn;
                }
                L->work++;
                if (twice || was == now)
                    continue;
                if (!apply) {
                    delta += was ? L->cnt[ti] == 1 : -(L->cnt[ti] == 0);
                } else if (was) {
                    if (--L->cnt[ti] == 0) {
                        L->uncovered++;
                        if (open_push(g, L, ti))
                            return INT64_MIN;
                    }
                } else if (L->cnt[ti]++ == 0) {
                    L->uncovered--;
                }
            }
        }
    } else {
        uint32_t e[HF_I_COVERAGE_MAX_D];
        int64_t ko[HF_I_COVERAGE_MAX_D], kn[HF_I_COVERAGE_MAX_D];
        e[0] = row[p];
        ko[0] = 2 * (int64_t)p;
        kn[0] = xnew;
        unsigned rest = g->d - 2;
        for (uint32_t i = 0; i <= f1 - f0; i++) {
            /* nearest to p first */
            uint32_t fy = q > p ? f0 + i : f1 - i;
            e[1] = row[fy];
            ko[1] = kn[1] = 2 * (int64_t)fy;
            /* the other entries: positions outside p and the passed events nearer than fy */
            uint32_t skip_lo = q > p ? p : fy, skip_hi = q > p ? fy : p;
            uint32_t idx[HF_I_COVERAGE_MAX_D] = {0};
            unsigned depth = 0;
            uint32_t next = 0;
            /* iterative enumeration of increasing position tuples of length `rest` */
            for (;;) {
                if (depth == rest) {
                    for (unsigned j = 0; j < rest; j++) {
                        e[2 + j] = row[idx[j]];
                        ko[2 + j] = kn[2 + j] = 2 * (int64_t)idx[j];
                    }
                    uint32_t co = sorted_code(g, e, ko), cn = sorted_code(g, e, kn);
                    L->work++;
                    if (apply) {
                        fast_count(g, L, co, L->cnt[co], L->cnt[co] - 1u);
                        if (--L->cnt[co] == 0) {
                            L->uncovered++;
                            if (open_push(g, L, co))
                                return INT64_MIN;
                        }
                        fast_count(g, L, cn, L->cnt[cn], L->cnt[cn] + 1u);
                        if (L->cnt[cn]++ == 0)
                            L->uncovered--;
                    } else {
                        delta += (L->cnt[co] == 1) - (L->cnt[cn] == 0);
                    }
                    if (depth == 0)
                        break;
                    next = idx[--depth] + 1;
                    continue;
                }
                if (next >= skip_lo && next <= skip_hi)
                    next = skip_hi + 1;
                if (next + (rest - depth) > m) {
                    if (depth == 0)
                        break;
                    next = idx[--depth] + 1;
                    continue;
                }
                idx[depth++] = next++;
            }
        }
    }
    if (apply) {
        uint32_t x = row[p];
        if (q > p)
            memmove(row + p, row + p + 1, (size_t)(q - p) * sizeof *row);
        else
            memmove(row + q + 1, row + q, (size_t)(p - q) * sizeof *row);
        row[q] = x;
        uint32_t a = q < p ? q : p, b = q < p ? p : q;
        for (uint32_t i = a; i <= b; i++)
            L->pos[(size_t)mv.r * m + row[i]] = i;
        hf_i_greedy_fast_pre(g, L, mv.r, a);
    }
    return delta;
}

/* An open tuple drawn uniformly from the list (dropping entries hit again meanwhile). */
static bool draw_open(greedy *g, ls *L, uint32_t *t)
{
    while (L->nopen) {
        size_t i = (size_t)hf_i_rng_below(&g->rng, L->nopen);
        uint32_t c = L->open[i];
        if (L->cnt[c] == 0 && L->sparse) {
            memcpy(t, L->tup + (size_t)c * g->d, g->d * sizeof *t);
            return true;
        }
        if (L->cnt[c] == 0) {
            for (unsigned j = g->d; j-- > 0;) {
                t[j] = c % g->m;
                c /= g->m;
            }
            return true;
        }
        L->open[i] = L->open[--L->nopen];
        hf_i_bit_clear(L->listed, c);
    }
    return false;
}

/* One tabu step toward hitting a drawn open tuple. */
static hf_status repair_step(greedy *g, ls *L, uint64_t *best_seen)
{
    uint32_t t[HF_I_COVERAGE_MAX_D], m = g->m;
    if (!draw_open(g, L, t))
        return HF_OK;
    L->step++;
    move pick = {0, 0, 0};
    int64_t top = INT64_MAX;
    uint32_t ties = 0;
    for (uint32_t r = 0; r < L->N; r++) {
        const uint32_t *pos = L->pos + (size_t)r * m, *row = L->rows + (size_t)r * m;
        for (unsigned i = 0; i < g->d; i++) {
            bool in_order = true;
            uint32_t prev = 0;
            bool have = false;
            for (unsigned j = 0; j < g->d && in_order; j++) {
                if (j == i)
                    continue;
                if (have && pos[t[j]] < prev)
                    in_order = false;
                prev = pos[t[j]];
                have = true;
            }
            if (!in_order)
                continue;
            uint32_t x = t[i], px = pos[x], q;
            if (i > 0 && px < pos[t[i - 1]])
                q = pos[t[i - 1]];
            else if (i + 1 < g->d && px > pos[t[i + 1]])
                q = pos[t[i + 1]];
            else
                continue;
            if (g->ordered) {
                bool ok = true;
                uint32_t a = q > px ? px + 1 : q, b = q > px ? q : px - 1;
                for (uint32_t k = a; k <= b && ok; k++)
                    ok = q > px ? !less(g, x, row[k]) : !less(g, row[k], x);
                if (!ok)
                    continue;
            }
            move mv = {r, px, q};
            int64_t delta = move_eval(g, L, mv, false);
            bool tabu = L->tabu[(size_t)r * m + x] > L->step;
            if (tabu && (int64_t)L->uncovered + delta >= (int64_t)*best_seen)
                continue;
            if (delta < top) {
                top = delta;
                pick = mv;
                ties = 1;
            } else if (delta == top && hf_i_rng_below(&g->rng, ++ties) == 0) {
                pick = mv;
            }
        }
    }
    if (top == INT64_MAX)
        return HF_OK;
    uint32_t x = L->rows[(size_t)pick.r * m + pick.p];
    if (move_eval(g, L, pick, true) == INT64_MIN)
        return HF_ENOMEM;
    L->tabu[(size_t)pick.r * m + x] = L->step + LS_TENURE + hf_i_rng_below(&g->rng, LS_TENURE);
    if (L->uncovered < *best_seen)
        *best_seen = L->uncovered;
    return HF_OK;
}

/* Counts from scratch for the first N schedules. */
static hf_status ls_recount(greedy *g, ls *L)
{
    uint64_t cells = L->cells;
    memset(L->cnt, 0, cells);
    if (L->fast)
        hf_i_greedy_fast_reset(g, L);
    memset(L->listed, 0, hf_i_words(cells) * sizeof *L->listed);
    L->nopen = 0;
    L->uncovered = 0; /* counts only the open tuples seen; the family covers all but these */
    for (uint32_t r = 0; r < L->N; r++) {
        set_pos(g, L, r);
        uint64_t none = 0;
        if (hits(g, L, r, HITS_ADD, &none))
            return HF_ENOMEM;
    }
    L->uncovered = 0;
    return HF_OK;
}

/* Sparse, after a failed repair (rows back to the saved family): the counts saved with that
 * family (the counts are kept exact through every move and drop, so they equal a recount) and
 * no tuple listed, as ls_recount leaves them, in O(cells + N m) instead of O(N R). */
static void ls_restore(greedy *g, ls *L)
{
    memcpy(L->cnt, L->cnt_saved, L->cells * sizeof *L->cnt);
    memset(L->listed, 0, hf_i_words(L->cells) * sizeof *L->listed);
    L->nopen = 0;
    L->uncovered = 0;
    for (uint32_t r = 0; r < L->N; r++)
        set_pos(g, L, r);
}

static void drop_row(greedy *g, ls *L, uint32_t r)
{
    uint32_t m = g->m, last = L->N - 1;
    if (r != last) {
        memcpy(L->rows + (size_t)r * m, L->rows + (size_t)last * m, m * sizeof *L->rows);
        memcpy(L->pos + (size_t)r * m, L->pos + (size_t)last * m, m * sizeof *L->pos);
        if (L->fast)
            memcpy(L->pre + (size_t)r * (m + 1) * g->W, L->pre + (size_t)last * (m + 1) * g->W,
                   (m + 1) * g->W * sizeof *L->pre);
    }
    L->N--;
}

static hf_status unique_counts(greedy *g, ls *L)
{
    for (uint32_t r = 0; r < L->N; r++) {
        L->unique[r] = 0;
        if (hits(g, L, r, HITS_UNIQUE, &L->unique[r]))
            return HF_ENOMEM;
    }
    return HF_OK;
}

static void ls_free(greedy *g, ls *L)
{
    hf_i_free(g->ctx, L->pos);
    hf_i_free(g->ctx, L->cnt);
    hf_i_free(g->ctx, L->listed);
    hf_i_free(g->ctx, L->open);
    hf_i_free(g->ctx, L->tabu);
    hf_i_free(g->ctx, L->saved);
    hf_i_free(g->ctx, L->cnt_saved);
    hf_i_free(g->ctx, L->unique);
    hf_i_free(g->ctx, L->tup);
    hf_i_free(g->ctx, L->off);
    hf_i_free(g->ctx, L->inc);
    hf_i_free(g->ctx, L->fast);
    hf_i_free(g->ctx, L->pre);
}

/* Shrink the schedules after the first `base` ones in place (g->count updated) so that with
 * the first ones they still hit every tuple. L holds the sparse tuple set if any (else the
 * dense one is used) and is freed here; `admissible` is the number of tuples to hit. */
static hf_status local_search(greedy *g, ls *L, uint32_t base, uint64_t admissible, uint64_t lower,
                              hf_error *err)
{
    uint32_t m = g->m;
    if (!L->sparse) {
        L->cells = 1;
        for (unsigned i = 0; i < g->d; i++)
            L->cells *= m;
    }
    L->rows = g->rows + (size_t)base * m;
    L->N = (uint32_t)(g->count - base);
    size_t nm = (size_t)L->N * m;
    L->pos = hf_i_alloc_array(g->ctx, nm, sizeof *L->pos);
    L->cnt = hf_i_malloc(g->ctx, (size_t)L->cells);
    L->listed = hf_i_alloc_array(g->ctx, hf_i_words(L->cells), sizeof *L->listed);
    L->tabu = hf_i_calloc(g->ctx, nm, sizeof *L->tabu);
    L->saved = hf_i_alloc_array(g->ctx, nm, sizeof *L->saved);
    L->unique = hf_i_alloc_array(g->ctx, L->N, sizeof *L->unique);
    hf_status st = HF_OK;
    if (!L->pos || !L->cnt || !L->listed || !L->tabu || !L->saved || !L->unique)
        goto nomem;
    if (g->d == 3 && !L->sparse && !g->plain_moves) {
        L->fast = hf_i_alloc_array(g->ctx, FAST_SETS * (size_t)m * m * g->W, sizeof *L->fast);
        L->pre = hf_i_alloc_array(g->ctx, nm + L->N, g->W * sizeof *L->pre);
        if (!L->fast || !L->pre)
            goto nomem;
    }
    if (ls_recount(g, L))
        goto nomem;
    /* the counting bound: a schedule hits exactly C(m, d) tuples */
    uint64_t per = 1;
    for (unsigned i = 0; i < g->d; i++)
        per = per * (m - i) / (i + 1);
    uint64_t floor = (admissible + per - 1) / per;
    floor = lower > floor ? lower : floor;
    /* schedules nothing needs */
    for (;;) {
        if (unique_counts(g, L))
            goto nomem;
        uint32_t r = 0;
        while (r < L->N && L->unique[r])
            r++;
        if (r == L->N || L->N <= 1)
            break;
        uint64_t none = 0;
        if (hits(g, L, r, HITS_SUB, &none))
            goto nomem;
        drop_row(g, L, r);
    }
    memcpy(L->saved, L->rows, (size_t)L->N * m * sizeof *L->saved);
    L->nsaved = L->N;
    if (L->sparse) {
        L->cnt_saved = hf_i_alloc_array(g->ctx, L->cells ? L->cells : 1, sizeof *L->cnt_saved);
        if (!L->cnt_saved)
            goto nomem;
        memcpy(L->cnt_saved, L->cnt, L->cells * sizeof *L->cnt);
    }
    /* the work of one repair: per tuple to hit, LS_ATTEMPT_SCALE per admissible tuple (dense)
     * up to LS_ATTEMPT_PER_TUPLE: small orders are repaired in few steps when at all */
    uint64_t scaled = admissible * LS_ATTEMPT_SCALE;
    uint64_t each = L->sparse || scaled > LS_ATTEMPT_PER_TUPLE ? LS_ATTEMPT_PER_TUPLE : scaled;
    uint64_t attempt = admissible * each;
    if (attempt < LS_ATTEMPT_MIN)
        attempt = LS_ATTEMPT_MIN;
    unsigned fails = 0;
    uint64_t budget = L->sparse ? LS_TAIL_WORK : LS_TOTAL_WORK;
    uint64_t round = 0;
    while (L->N > floor && L->N > 1 && L->work < budget && fails < LS_FAILS) {
        if ((st = hf_i_progress(g->ctx, "greedy", ++round, 0, err))) {
            ls_free(g, L);
            return st;
        }
        if (unique_counts(g, L))
            goto nomem;
        /* the fails-th fewest alone-hit schedule (lowest index on ties) */
        uint32_t r = 0;
        for (unsigned k = 0; k <= fails % L->N; k++) {
            uint32_t pick = NONE;
            for (uint32_t i = 0; i < L->N; i++)
                if (L->unique[i] != UINT64_MAX && (pick == NONE || L->unique[i] < L->unique[pick]))
                    pick = i;
            r = pick;
            L->unique[pick] = UINT64_MAX;
        }
        uint64_t none = 0;
        if (hits(g, L, r, HITS_SUB, &none))
            goto nomem;
        drop_row(g, L, r);
        memset(L->tabu, 0, nm * sizeof *L->tabu);
        L->step = 0;
        uint64_t best_seen = L->uncovered;
        uint64_t stop = L->work + attempt;
        if (stop > budget)
            stop = budget;
        while (L->uncovered > 0 && L->work < stop) {
            if (repair_step(g, L, &best_seen))
                goto nomem;
            L->work += L->N; /* the step's own overhead, so that a stuck search still ends */
        }
        if (L->uncovered == 0) {
            memcpy(L->saved, L->rows, (size_t)L->N * m * sizeof *L->saved);
            L->nsaved = L->N;
            if (L->cnt_saved)
                memcpy(L->cnt_saved, L->cnt, L->cells * sizeof *L->cnt);
            fails = 0;
            hf_i_log(g->ctx, HF_LOG_PROGRESS, "greedy: local search reached %" PRIu32 " schedules",
                     L->N);
        } else {
            memcpy(L->rows, L->saved, (size_t)L->nsaved * m * sizeof *L->rows);
            L->N = L->nsaved;
            if (L->cnt_saved) { /* what ls_recount gives, without the recount */
                ls_restore(g, L);
            } else if (ls_recount(g, L)) {
                goto nomem;
            }
            fails++;
        }
    }
    g->count = base + L->nsaved;
    memcpy(L->rows, L->saved, (size_t)L->nsaved * m * sizeof *L->rows);
    ls_free(g, L);
    return HF_OK;
nomem:
    ls_free(g, L);
    st = hf_i_fail(err, HF_ENOMEM, 0, 0, "out of memory");
    return st;
}

/* Families too large for a count per tuple: freeze the first schedules, up to the last one
 * after which at most TAIL_MAX tuples were left open, list those tuples, and run the local
 * search on the later schedules with a count for each listed tuple only. The bookkeeping of
 * the rounds is rebuilt for the frozen schedules to list the tuples, then freed. */
hf_status hf_i_greedy_tail_search(greedy *g, const uint64_t *left, const hf_gen_options *opt,
                                  uint64_t tail_max, hf_error *err)
{
    uint32_t base = 0, m = g->m;
    while (base < g->count && left[base] > tail_max)
        base++;
    /* now the rows up to `base` leave at most TAIL_MAX open; freeze them */
    base++;
    /* (the pair index has m^2 entries: only at d = 2 can m be too large for it) */
    if (base >= g->count || g->count - base < 2 || g->count - base > LS_MAX_ROWS ||
        (uint64_t)m * m > TAIL_MAX_PAIRS)
        return HF_OK;
    hf_i_coverage_free(g->cov);
    g->cov = NULL;
    const uint32_t *focus = opt->focus_prefix ? NULL : opt->focus;
    size_t focus_count = opt->focus_prefix ? 0 : opt->focus_count;
    hf_status st = hf_i_coverage_new(g->p, opt->d, focus, focus_count, &g->cov, err);
    if (st)
        return st;
    for (uint32_t r = 0; r < base; r++)
        hf_i_coverage_add_local(g->cov, g->rows + (size_t)r * m);
    ls L;
    memset(&L, 0, sizeof L);
    L.sparse = true;
    L.R = L.cells = hf_i_coverage_remaining(g->cov);
    unsigned d = g->d;
    size_t pairs = (size_t)m * m;
    L.tup = hf_i_alloc_array(g->ctx, L.R * d, sizeof *L.tup);
    L.off = hf_i_calloc(g->ctx, pairs + 1, sizeof *L.off);
    L.inc = hf_i_alloc_array(g->ctx, L.R * d * (d - 1), sizeof *L.inc);
    if (!L.tup || !L.off || !L.inc) {
        ls_free(g, &L);
        return hf_i_fail(err, HF_ENOMEM, 0, 0, "out of memory");
    }
    /* every open tuple: rows by prefix, prefixes of distinct events */
    size_t k = 0, W = g->W;
    uint32_t t[HF_I_COVERAGE_MAX_D] = {0};
    for (;;) {
        bool distinct = true;
        for (unsigned i = 0; i + 1 < d; i++)
            for (unsigned j = 0; j < i; j++)
                distinct = distinct && t[i] != t[j];
        if (distinct) {
            const hf_word *row = hf_i_coverage_row(g->cov, t);
            for (size_t w = 0; w < W; w++)
                for (hf_word bits = row[w]; bits; bits &= bits - 1) {
                    t[d - 1] = (uint32_t)(w * 64 + hf_i_ctz(bits));
                    memcpy(L.tup + k * d, t, d * sizeof *t);
                    for (unsigned i = 0; i < d; i++)
                        for (unsigned j = 0; j < d; j++)
                            if (i != j)
                                L.off[(size_t)t[i] * m + t[j] + 1]++;
                    k++;
                }
        }
        unsigned i = d - 1;
        while (i > 0 && ++t[i - 1] == m)
            t[--i] = 0;
        if (i == 0)
            break;
    }
    for (size_t x = 0; x < pairs; x++)
        L.off[x + 1] += L.off[x];
    for (size_t i = 0; i < L.R; i++)
        for (unsigned a = 0; a < d; a++)
            for (unsigned b = 0; b < d; b++)
                if (a != b)
                    L.inc[L.off[(size_t)L.tup[i * d + a] * m + L.tup[i * d + b]]++] = (uint32_t)i;
    for (size_t x = pairs; x > 0; x--)
        L.off[x] = L.off[x - 1];
    L.off[0] = 0;
    hf_i_log(g->ctx, HF_LOG_PROGRESS,
             "greedy: local search on the last %zu schedules (%zu "
             "tuples)",
             g->count - base, L.R);
    return local_search(g, &L, base, L.R, 0, err);
}

/* The smallest 3-hitting families of antichains of w = 3..8 events, proved by method exact
 * (papers/smallest/README.md; the same table as lib/bounds.c and lib/gen_exact.c). */
static const uint8_t scan3[] = {0, 1, 2, 6, 6, 7, 8, 8, 8};

/* A lower bound on every d-hitting family of the whole order, known without solving:
 * hf_count_lower_bound, and at d = 3 on a forest or an in-forest the table above at its width
 * (its leaves, or roots, are pairwise incomparable and no larger antichain exists: the paths
 * from them cover the order). 0 when the tuples to hit are not all the order's (a focus set). */
static hf_status order_floor(const greedy *g, uint64_t *out, hf_error *err)
{
    *out = 0;
    const hf_poset *p = g->p;
    if (g->m != g->n)
        return HF_OK;
    mpz_t v;
    mpz_init(v);
    hf_status st = hf_count_lower_bound(p, g->d, v, NULL);
    if (st == HF_OK && mpz_cmp_ui(v, LS_MAX_ROWS) <= 0)
        *out = mpz_get_ui(v);
    mpz_clear(v);
    if (st == HF_ENOMEM)
        return hf_i_fail(err, st, 0, 0, "out of memory");
    if (g->d == 3 && (p->shape & (HF_SHAPE_FOREST | HF_SHAPE_INFOREST))) {
        bool out_forest = (p->shape & HF_SHAPE_FOREST) != 0;
        uint32_t w = 0;
        for (uint32_t x = 0; x < p->n; x++)
            w += out_forest ? p->succ_off[x + 1] == p->succ_off[x]
                            : p->pred_off[x + 1] == p->pred_off[x];
        uint64_t t = scan3[w < 8 ? w : 8];
        *out = t > *out ? t : *out;
    }
    return HF_OK;
}

hf_status hf_i_greedy_local_search(greedy *g, uint64_t admissible, hf_error *err)
{
    ls L;
    memset(&L, 0, sizeof L);
    uint64_t lower;
    hf_status st = order_floor(g, &lower, err);
    return st ? st : local_search(g, &L, 0, admissible, lower, err);
}
