/* Method exact's problem (lib/exact_i.h): the focus events and the order they induce, the
 * admissible tuples merged into constraints on pairs, and families as rows of local ids. */
#include <stdlib.h>
#include <string.h>

#include "exact_i.h"
#include "family_i.h"
#include "poset_i.h"

/* Enumeration work (prefixes visited) allowed per admissible tuple when counting them. */
#define ENUM_WORK_PER_TUPLE 64u

void hf_i_exact_problem_free(problem *q)
{
    hf_i_free(q->ctx, q->global);
    hf_i_free(q->ctx, q->local);
    hf_i_free(q->ctx, q->rel);
    hf_i_free(q->ctx, q->sets);
    hf_i_free(q->ctx, q->set_len);
    hf_i_free(q->ctx, q->pair_a);
    hf_i_free(q->ctx, q->pair_b);
    memset(q, 0, sizeof *q);
}

/* Focus events and pair relations (no tuples yet). */
static hf_status problem_init(problem *q, const hf_poset *p, unsigned d, const uint32_t *focus,
                              size_t focus_count, hf_error *err)
{
    memset(q, 0, sizeof *q);
    q->p = p;
    q->ctx = p->ctx;
    q->n = p->n;
    if (!focus && p->n > HF_EXACT_MAX_EVENTS) { /* refused by the caller: no table of n */
        q->k = p->n;
        q->d = d < q->k ? d : q->k;
        return HF_OK;
    }
    q->local = hf_i_alloc_array(q->ctx, p->n ? p->n : 1, sizeof *q->local);
    if (!q->local)
        return hf_i_fail(err, HF_ENOMEM, 0, 0, "out of memory");
    for (uint32_t v = 0; v < p->n; v++)
        q->local[v] = focus ? NONE : v;
    q->k = focus ? 0 : p->n;
    if (focus) {
        for (size_t i = 0; i < focus_count; i++)
            if (q->local[focus[i]] == NONE)
                q->local[focus[i]] = q->k++;
        /* local ids in event order, so that the encoding does not depend on the list's order */
        uint32_t next = 0;
        for (uint32_t v = 0; v < p->n; v++)
            if (q->local[v] != NONE)
                q->local[v] = next++;
    }
    q->d = d < q->k ? d : q->k;
    if (q->k > HF_EXACT_MAX_EVENTS)
        return HF_OK; /* refused by the caller, with the count */
    size_t k1 = q->k ? q->k : 1;
    size_t pairs1 = k1 * (k1 - 1) / 2 + 1;
    q->global = hf_i_alloc_array(q->ctx, k1, sizeof *q->global);
    q->rel = hf_i_alloc_array(q->ctx, k1 * k1, sizeof *q->rel);
    q->pair_a = hf_i_alloc_array(q->ctx, pairs1, sizeof *q->pair_a);
    q->pair_b = hf_i_alloc_array(q->ctx, pairs1, sizeof *q->pair_b);
    if (!q->global || !q->rel || !q->pair_a || !q->pair_b)
        return hf_i_fail(err, HF_ENOMEM, 0, 0, "out of memory");
    for (uint32_t v = 0; v < p->n; v++)
        if (q->local[v] != NONE)
            q->global[q->local[v]] = v;
    q->antichain = true;
    for (uint32_t a = 0; a < q->k; a++) {
        q->rel[a * k1 + a] = 0;
        for (uint32_t b = a + 1; b < q->k; b++) {
            int32_t r;
            if (hf_i_less(p, q->global[a], q->global[b]))
                r = REL_TRUE;
            else if (hf_i_less(p, q->global[b], q->global[a]))
                r = REL_FALSE;
            else {
                q->pair_a[q->pairs] = a;
                q->pair_b[q->pairs] = b;
                r = (int32_t)++q->pairs;
            }
            if (r == REL_TRUE || r == REL_FALSE)
                q->antichain = false;
            q->rel[a * k1 + b] = r;
            q->rel[b * k1 + a] = r == REL_TRUE ? REL_FALSE : r == REL_FALSE ? REL_TRUE : -r;
        }
    }
    return HF_OK;
}

/* Enumerate admissible d-tuples: count them (stop past `limit`), and with `collect` record each
 * one's consecutive free pairs. */
typedef struct walk {
    problem *q;
    bool collect;
    uint64_t limit, work, work_limit;
    uint32_t t[HF_MAX_D];
    hf_status st;
} walk;

static int cmp_code(const void *x, const void *y)
{
    int32_t a = *(const int32_t *)x, b = *(const int32_t *)y;
    return (a > b) - (a < b);
}

static void walk_rec(walk *w, unsigned depth)
{
    problem *q = w->q;
    if (w->st || q->tuples > w->limit || w->work > w->work_limit)
        return;
    if (depth == q->d) {
        q->tuples++;
        if (!w->collect)
            return;
        unsigned e = q->d ? q->d - 1 : 0, len = 0;
        int32_t codes[HF_MAX_D];
        for (unsigned i = 0; i + 1 < q->d; i++) {
            int32_t r = rel(q, w->t[i], w->t[i + 1]);
            if (r != REL_TRUE)
                codes[len++] = r;
        }
        if (len == 0)
            return; /* every schedule hits it */
        qsort(codes, len, sizeof *codes, cmp_code);
        for (unsigned i = len; i < e; i++)
            codes[i] = 0;
        if (HF_I_GROW(q->ctx, q->sets, &q->cap, (q->count + 1) * e)) {
            w->st = HF_ENOMEM;
            return;
        }
        memcpy(q->sets + q->count * e, codes, e * sizeof *codes);
        q->count++;
        return;
    }
    for (uint32_t x = 0; x < q->k; x++) {
        w->work++;
        bool ok = true;
        for (unsigned i = 0; i < depth && ok; i++)
            ok = w->t[i] != x && rel(q, x, w->t[i]) != REL_TRUE;
        if (!ok)
            continue;
        w->t[depth] = x;
        walk_rec(w, depth + 1);
    }
}

/* Count the admissible tuples; HF_ETOOLARGE past HF_EXACT_MAX_TUPLES. */
static hf_status count_tuples(problem *q, bool collect, hf_error *err)
{
    walk w = {
        q,   collect, HF_EXACT_MAX_TUPLES, 0, (uint64_t)HF_EXACT_MAX_TUPLES * ENUM_WORK_PER_TUPLE,
        {0}, HF_OK};
    q->tuples = 0;
    q->count = 0;
    if (q->d > 0)
        walk_rec(&w, 0);
    if (w.st)
        return hf_i_fail(err, w.st, 0, 0, "out of memory");
    if (q->tuples > HF_EXACT_MAX_TUPLES || w.work > w.work_limit)
        return hf_i_fail(err, HF_ETOOLARGE, 0, 0,
                         "method exact takes at most %u admissible %u-tuples; this order has "
                         "more: use greedy or the tree methods",
                         HF_EXACT_MAX_TUPLES, q->d);
    return HF_OK;
}

/* Sort the constraints (by length, then codes; a stable merge sort of indices), merge
 * duplicates, and drop one-pair constraints contained in longer ones. */
static hf_status merge_sets(problem *q, hf_error *err)
{
    size_t c = q->count;
    unsigned e = set_stride(q);
    if (c == 0)
        return HF_OK;
    uint32_t *len = hf_i_alloc_array(q->ctx, c, sizeof *len);
    uint32_t *out_len = hf_i_alloc_array(q->ctx, c, sizeof *out_len);
    size_t *idx = hf_i_alloc_array(q->ctx, c, sizeof *idx);
    size_t *tmp = hf_i_alloc_array(q->ctx, c, sizeof *tmp);
    int32_t *out = hf_i_alloc_array(q->ctx, c * e, sizeof *out);
    uint8_t *inside = hf_i_calloc(q->ctx, 2 * (size_t)q->pairs + 1, 1);
    hf_status st = HF_OK;
    if (!len || !out_len || !idx || !tmp || !out || !inside) {
        st = hf_i_fail(err, HF_ENOMEM, 0, 0, "out of memory");
        goto done;
    }
    for (size_t i = 0; i < c; i++) {
        unsigned l = 0;
        while (l < e && q->sets[i * e + l] != 0)
            l++;
        len[i] = l;
        idx[i] = i;
    }
    for (size_t width = 1; width < c; width *= 2) {
        for (size_t lo = 0; lo < c; lo += 2 * width) {
            size_t mid = lo + width < c ? lo + width : c;
            size_t hi = lo + 2 * width < c ? lo + 2 * width : c;
            size_t i = lo, j = mid, o = lo;
            while (i < mid || j < hi) {
                bool take_i = j >= hi;
                if (i < mid && j < hi) {
                    size_t x = idx[i], y = idx[j];
                    int r = (len[x] > len[y]) - (len[x] < len[y]);
                    for (unsigned t = 0; t < e && r == 0; t++)
                        r = cmp_code(&q->sets[x * e + t], &q->sets[y * e + t]);
                    take_i = r <= 0;
                }
                tmp[o++] = take_i ? idx[i++] : idx[j++];
            }
        }
        size_t *sw = idx;
        idx = tmp;
        tmp = sw;
    }
    for (size_t i = 0; i < c; i++)
        if (len[i] >= 2)
            for (unsigned t = 0; t < len[i]; t++)
                inside[q->sets[i * e + t] + (int32_t)q->pairs] = 1;
    size_t kept = 0, singles = 0;
    for (size_t r = 0; r < c; r++) {
        size_t i = idx[r];
        const int32_t *set = q->sets + i * e;
        if (kept > 0 && memcmp(out + (kept - 1) * e, set, e * sizeof *set) == 0)
            continue;
        if (len[i] == 1 && inside[set[0] + (int32_t)q->pairs])
            continue;
        memcpy(out + kept * e, set, e * sizeof *set);
        out_len[kept++] = len[i];
        singles += len[i] == 1;
    }
    hf_i_free(q->ctx, q->sets);
    q->sets = out;
    out = NULL;
    q->cap = c * e;
    q->count = kept;
    q->singles = singles;
    hf_i_free(q->ctx, q->set_len);
    q->set_len = out_len;
    out_len = NULL;
done:
    hf_i_free(q->ctx, len);
    hf_i_free(q->ctx, out_len);
    hf_i_free(q->ctx, idx);
    hf_i_free(q->ctx, tmp);
    hf_i_free(q->ctx, out);
    hf_i_free(q->ctx, inside);
    return st;
}

hf_status hf_i_exact_rows_push(hf_ctx *ctx, rows *f, uint32_t k, const uint32_t *seq)
{
    size_t k1 = k ? k : 1;
    if (HF_I_GROW(ctx, f->v, &f->cap, (f->m + 1) * k1))
        return HF_ENOMEM;
    memcpy(f->v + f->m * k1, seq, k * sizeof *seq);
    f->m++;
    return HF_OK;
}

/* Whether a row whose positions are pos hits constraint u. */
static bool row_hits(const problem *q, const uint32_t *pos, size_t u)
{
    unsigned e = set_stride(q);
    for (unsigned t = 0; t < q->set_len[u]; t++) {
        int32_t c = q->sets[u * e + t];
        uint32_t i = (uint32_t)(c > 0 ? c : -c) - 1, a = q->pair_a[i], b = q->pair_b[i];
        if ((pos[a] < pos[b]) != (c > 0))
            return false;
    }
    return true;
}

static void positions(uint32_t k, const uint32_t *seq, uint32_t *pos)
{
    for (uint32_t i = 0; i < k; i++)
        pos[seq[i]] = i;
}

/* Drop redundant rows (the last ones first), keeping at least one when there are events.
 * *hitting: every constraint is hit. Needs 2k + count words of scratch. */
hf_status hf_i_exact_rows_irredundant(const problem *q, rows *f, bool *hitting, hf_error *err)
{
    size_t c = q->count, k = q->k;
    uint32_t *cnt = hf_i_calloc(q->ctx, c ? c : 1, sizeof *cnt);
    uint32_t *pos = hf_i_alloc_array(q->ctx, k ? k : 1, sizeof *pos);
    if (!cnt || !pos) {
        hf_i_free(q->ctx, cnt);
        hf_i_free(q->ctx, pos);
        return hf_i_fail(err, HF_ENOMEM, 0, 0, "out of memory");
    }
    for (size_t r = 0; r < f->m; r++) {
        positions(q->k, f->v + r * k, pos);
        for (size_t u = 0; u < c; u++)
            cnt[u] += row_hits(q, pos, u);
    }
    *hitting = f->m > 0 || q->k == 0;
    for (size_t u = 0; u < c; u++)
        if (cnt[u] == 0)
            *hitting = false;
    if (*hitting)
        for (size_t r = f->m; r-- > 0 && f->m > 1;) {
            positions(q->k, f->v + r * k, pos);
            bool needed = false;
            for (size_t u = 0; u < c && !needed; u++)
                needed = cnt[u] == 1 && row_hits(q, pos, u);
            if (needed)
                continue;
            for (size_t u = 0; u < c; u++)
                cnt[u] -= row_hits(q, pos, u);
            memmove(f->v + r * k, f->v + (r + 1) * k, (f->m - r - 1) * k * sizeof *f->v);
            f->m--;
        }
    hf_i_free(q->ctx, cnt);
    hf_i_free(q->ctx, pos);
    return HF_OK;
}

/* A schedule of all events from a sequence of the focus events: other events are placed as
 * soon as they are available (the latest made available first), a focus event when it is the
 * next one of the sequence. Always completes: an unplaced predecessor of the next focus event
 * has a minimal unplaced ancestor, which is no focus event (those come earlier in the
 * sequence), so it is available. */
hf_status hf_i_exact_rows_to_family(const problem *q, const rows *f, hf_family **out, hf_error *err)
{
    const hf_poset *p = q->p;
    hf_ctx *ctx = q->ctx;
    uint32_t n = q->n;
    size_t n1 = n ? n : 1;
    hf_family *fam = NULL;
    uint32_t *sched = hf_i_alloc_array(ctx, n1, sizeof *sched);
    uint32_t *indeg = hf_i_alloc_array(ctx, n1, sizeof *indeg);
    uint32_t *heap = hf_i_alloc_array(ctx, n1, sizeof *heap);
    hf_status st = HF_OK;
    if (!sched || !indeg || !heap || hf_family_new(ctx, n, &fam)) {
        st = hf_i_fail(err, HF_ENOMEM, 0, 0, "out of memory");
        goto done;
    }
    for (size_t r = 0; r < f->m && !st; r++) {
        const uint32_t *seq = f->v + r * q->k;
        uint32_t placed = 0, next = 0, top = 0;
        for (uint32_t v = 0; v < n; v++) {
            indeg[v] = (uint32_t)(p->pred_off[v + 1] - p->pred_off[v]);
            if (indeg[v] == 0 && q->local[v] == NONE)
                heap[top++] = v;
        }
        /* `heap` is a stack of the available non-focus events */
        while (placed < n) {
            uint32_t v;
            if (top > 0) {
                v = heap[--top];
            } else {
                if (next >= q->k)
                    break;
                v = q->global[seq[next++]];
                if (indeg[v] != 0)
                    break;
            }
            sched[placed++] = v;
            for (size_t e = p->succ_off[v]; e < p->succ_off[v + 1]; e++) {
                uint32_t w = p->succ[e];
                if (--indeg[w] == 0 && q->local[w] == NONE)
                    heap[top++] = w;
            }
        }
        if (placed < n) {
            st = hf_i_fail(err, HF_ESTATE, 0, 0,
                           "internal error: method exact built a sequence that does not respect "
                           "the order");
            break;
        }
        if (hf_family_append(fam, sched))
            st = hf_i_fail(err, HF_ENOMEM, 0, 0, "out of memory");
    }
done:
    hf_i_free(ctx, sched);
    hf_i_free(ctx, indeg);
    hf_i_free(ctx, heap);
    if (st)
        hf_family_free(fam);
    else
        *out = fam;
    return st;
}

/* The focus events of every schedule of fam, in order. */
hf_status hf_i_exact_family_to_rows(const problem *q, const hf_family *fam, rows *f, hf_error *err)
{
    uint32_t *seq = hf_i_alloc_array(q->ctx, q->k ? q->k : 1, sizeof *seq);
    if (!seq)
        return hf_i_fail(err, HF_ENOMEM, 0, 0, "out of memory");
    hf_status st = HF_OK;
    for (size_t r = 0; r < fam->m && !st; r++) {
        const uint32_t *s = fam->rows + r * (size_t)fam->n;
        uint32_t j = 0;
        for (uint32_t i = 0; i < fam->n; i++)
            if (q->local[s[i]] != NONE)
                seq[j++] = q->local[s[i]];
        if (hf_i_exact_rows_push(q->ctx, f, q->k, seq))
            st = hf_i_fail(err, HF_ENOMEM, 0, 0, "out of memory");
    }
    hf_i_free(q->ctx, seq);
    return st;
}

/* ---- the problem of a call ---- */

/* Arguments, the SAT solver's presence, and the limits; then the constraints. */
hf_status hf_i_exact_prepare(problem *q, const hf_poset *p, unsigned d, const uint32_t *focus,
                             size_t focus_count, hf_error *err)
{
    memset(q, 0, sizeof *q);
    if (!p)
        return hf_i_fail(err, HF_EINVAL, 0, 0, "invalid argument");
    hf_status bad = hf_i_check_d_focus(p, d, focus, focus_count, err);
    if (bad)
        return bad;
    if (!hf_exact_available())
        return hf_i_fail(err, HF_EUNSUPPORTED, 0, 0, "%s", hf_i_exact_missing_sat);
    hf_status st = problem_init(q, p, d, focus_count ? focus : NULL, focus_count, err);
    if (!st && q->k > HF_EXACT_MAX_EVENTS)
        st = hf_i_fail(err, HF_ETOOLARGE, 0, 0,
                       "method exact takes at most %u %sevents (this order has %" PRIu32 "): use "
                       "greedy or the tree methods",
                       HF_EXACT_MAX_EVENTS, focus_count ? "focus " : "", q->k);
    if (!st)
        st = count_tuples(q, true, err);
    if (!st)
        st = merge_sets(q, err);
    if (st)
        hf_i_exact_problem_free(q);
    return st;
}
