/* The enumeration of hf_verify under one first event: the admissible prefixes depth-first, the
 * last entry settled by the greedy order or by increasing position (lib/verify.c explains it). */
#include <string.h>

#include "poset_i.h"
#include "verify_i.h"

/* The lowest allowed (in `allow`, not in F) event with id >= from, or HF_NO_EVENT. */
static uint32_t next_allowed(const struct ver *v, const hf_word *F, const hf_word *allow,
                             uint32_t from)
{
    size_t w = from / HF_WORD_BITS;
    if (w >= v->W)
        return HF_NO_EVENT;
    hf_word x = ~F[w] & allow[w] & (~(hf_word)0 << (from % HF_WORD_BITS));
    while (!x) {
        if (++w == v->W)
            return HF_NO_EVENT;
        x = ~F[w] & allow[w];
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
    const uint32_t *row = hf_i_ver_row(v, s);
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
    const uint32_t *row = hf_i_ver_row(v, s);
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
 * *first, returns 1). The schedules looked at are added to *steps (the polls' measure of work). */
static size_t settle_greedy(const struct worker *w, size_t k, size_t lo, size_t hi, bool first_only,
                            uint32_t *first, uint64_t *steps)
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
        *steps += j + 1;
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

/* d = 3 on a forest with B: the second entries to visit under the first event a, those failing
 * A's test and those of chunks of B not filled yet (pair_settled tells them apart). */
static void pair_visit(struct worker *w, const struct shared *sh, uint32_t a)
{
    const struct ver *v = w->v;
    const size_t W = v->W;
    const hf_word *pb = sh->pair_b + (size_t)a * W;
    for (size_t u = 0; u < W; u++) {
        bool filled = atomic_load_explicit(&sh->pair_state[u], memory_order_acquire) == 2;
        w->pair_visit[u] = (filled ? ~(w->pair_a[u] & pb[u]) : ~(hf_word)0) & v->focus[u];
    }
}

/* Whether the prefix (a, b) visited with B in use (S_2 in w->sel, k of them) hits every
 * continuation, by A's and B's tests; when b's chunk of B is not filled, by the children along
 * b's path looked up, whose cost (and the cuts' when they fail) goes to the chunk's account,
 * and the chunk is filled once that account reaches its cost. */
static bool pair_settled(struct worker *w, struct shared *sh, const hf_word *Fprev, uint32_t a,
                         uint32_t b, size_t k)
{
    const struct ver *v = w->v;
    const size_t W = v->W, u = b / HF_WORD_BITS;
    if (!hf_i_bit_test(w->pair_a, b))
        return false;
    unsigned char state = atomic_load_explicit(&sh->pair_state[u], memory_order_acquire);
    if (state == 2)
        return hf_i_bit_test(sh->pair_b + (size_t)a * W, b);
    uint64_t before = w->steps;
    bool covered = hf_i_ver_forest_covered(w, Fprev, b, k, true);
    /* the prefix's visit (S_2 listed, the tests) besides the lookups, and the cuts' */
    uint64_t spend = w->steps - before + v->m + 2 * W + (covered ? 0 : 4 * W + k);
    if (state == 1 || !v->pair_rent ||
        atomic_fetch_add(&sh->pair_spent[u], spend) + spend < sh->pair_cost[u] / v->pair_rent)
        return covered;
    unsigned char empty = 0;
    if (atomic_compare_exchange_strong(&sh->pair_state[u], &empty, 1) &&
        hf_i_ver_forest_rows_b(w, sh, u)) {
        atomic_store_explicit(&sh->pair_state[u], 2, memory_order_release);
        const hf_word *pb = sh->pair_b + (size_t)a * W;
        w->pair_visit[u] = ~(w->pair_a[u] & pb[u]) & v->focus[u];
    }
    return covered;
}

/* The admissible prefixes starting with a1 = sh->firsts[idx] (d >= 2), depth-first in
 * lexicographic order. With first_only, stop at the first uncovered tuple (into w->witness,
 * returns true) or as soon as another worker found one with an earlier first event (returns
 * false); otherwise add the uncovered tuples to w's count. Polls every HF_I_VER_POLL steps, and
 * returns false (w's count incomplete) when the workers are stopped (sh->stop). */
bool hf_i_ver_from_first(struct worker *w, struct shared *sh, size_t idx)
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
    /* d = 3 on a forest: the minimal events off F_{d-2} and A's row are listed when a prefix
     * first needs them (due: not yet), since on deep trees the quick test settles most prefixes
     * in O(1). Then with pairs (B in use), the second entries visited are w->pair_visit's and
     * settled by pair_settled; with only_a (B not used), A's row itself tells which need the
     * children along their path looked up. */
    bool pairs = false, only_a = false, due = false;
    uint64_t acc = 0;
    unsigned lvl = 1;
    bool started = false;
    for (;;) {
        if (hf_i_ver_tick(w, sh, 1))
            return false;
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
            /* with the pair matrices, only the prefixes they find uncovered */
            c = next_allowed(v, Fprev, lvl == last && pairs ? w->pair_visit : v->focus,
                             cursor[lvl]);
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
        size_t k = 0;
        if (lvl == last && pp && !v->reference) {
            /* S_last by increasing position of c */
            for (size_t j = 0; j < m; j++) {
                uint32_t s = order[j];
                w->sel[k] = s;
                w->sel_at[k] = at[j];
                k += Sprev[s] & (pp[s] < at[j]);
            }
            w->steps += m;
            if (due) {
                hf_i_ver_forest_frontier(w, Fprev);
                if (w->pair_a && last == 2) {
                    hf_i_ver_forest_row_a(w, a[1]);
                    only_a = w->pair_a_ok;
                    pairs = only_a && sh->pair_b;
                    if (pairs)
                        pair_visit(w, sh, a[1]);
                }
                due = false;
            }
            if (pairs) {
                if (pair_settled(w, sh, Fprev, a[1], c, k))
                    continue;
            } else if (path && (!only_a || hf_i_bit_test(w->pair_a, c)) &&
                       hf_i_ver_forest_covered(w, Fprev, c, k, only_a)) {
                continue;
            }
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
                w->steps += m;
            }
            if (lvl + 1 == last)
                held = HF_NO_EVENT;
            if (lvl + 1 == last && v->tree) {
                fsize = 0;
                for (size_t u = 0; u < W; u++)
                    fsize += hf_i_popcount(Fcur[u]);
                /* the O(n) table pays off unless few continuations are left: the reference
                 * order keeps its old bound (n/16 of them), hf_verify needs enough prefixes
                 * that O(n/64) each would cost more (the last n/16 first events of a chain
                 * took a fifth of its time without it) */
                size_t left = v->n - fsize;
                quick = v->reference ? left * 16 >= v->n : left * (W + 16) >= v->n;
                if (quick)
                    tree_aux(v, w->aux, Fcur);
                due = path && v->pos && !v->reference;
                pairs = only_a = false;
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
            uint32_t x = HF_NO_EVENT;
            size_t missed = settle_greedy(w, k, lo, hi, first_only, &x, &w->steps);
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
            w->steps += len;
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
