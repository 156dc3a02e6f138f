/* Method exact and hitfam/exact.h: smallest d-hitting families of small orders by incremental SAT
 * (CaDiCaL's C API), going down from a known family until the solver refutes one size less.
 *
 * Everything works on the k focus events (all events without a focus set) and the order they
 * induce: a family of that order's linear extensions extends schedule by schedule to the whole
 * order (non-focus events placed as soon as they are available), and restricting a family of
 * the whole order gives one of the induced order, so both have the same minimum.
 *
 * Encoding, for R schedules (rows). Pairs: every incomparable pair {a, b} (a < b as local ids)
 * gets one variable per row, true iff a comes before b in that row; comparable pairs are
 * constants. A row is a linear extension iff its tournament has no 3-cycle: two clauses per
 * triple of events (fewer when some of its pairs are constants). Tuples: an admissible d-tuple
 * is hit by a row iff each consecutive pair is in the tuple's order there (transitivity gives
 * the rest), so only its consecutive incomparable pairs matter; tuples with the same such set
 * are one constraint, and a one-pair set that occurs inside a larger set is dropped (hitting the
 * larger one hits it). A one-pair constraint is covered by the clause "some row has that
 * literal"; a larger one gets a variable per row implying its literals, and the clause "some
 * row's variable". Symmetry: rows are in lexicographic order of their pair variables (any
 * family can be sorted), with one chain of "equal so far" variables per neighbouring rows;
 * when the k events are an antichain the first row is fixed to the identity (relabelling the
 * events maps any row to it) and the others are sorted.
 *
 * Search: start from a known family of M schedules (given, or the smallest construction), ask
 * for R = M - 1 rows; each family found is cut down to an irredundant one of j rows, and the
 * next call asks for j - 1 by tying rows j - 1 .. R - 1 to row j - 2 (equality clauses, so the
 * solver keeps what it learned). An UNSAT answer proves the last family minimum; reaching
 * hf_count_lower_bound proves it without a call. The budget counts conflicts (learned clauses,
 * through the learn callback) over all calls: deterministic. */
#include <stdlib.h>
#include <string.h>

#include "bounds_i.h"
#include "family_i.h"
#include "gen.h"
#include "hitfam/count.h"
#include "hitfam/exact.h"
#include "poset_i.h"

#ifdef HF_HAVE_SAT
#include <ccadical.h>
#endif

/* Pair relations: a constant, or +-(free pair index + 1). */
#define REL_TRUE  INT32_MAX
#define REL_FALSE INT32_MIN
/* Orders on which the start family may also come from greedy. */
#define START_GREEDY_MAX_EVENTS 32u
/* Enumeration work (prefixes visited) allowed per admissible tuple when counting them. */
#define ENUM_WORK_PER_TUPLE 64u

static const char missing_sat[] =
    "method exact needs the SAT solver CaDiCaL, which this build of hitfam lacks: install "
    "libcadical-dev and rebuild (meson feature 'sat')";

bool hf_exact_available(void)
{
#ifdef HF_HAVE_SAT
    return true;
#else
    return false;
#endif
}

void hf_exact_options_init(hf_exact_options *o)
{
    if (!o)
        return;
    memset(o, 0, sizeof *o);
    o->d = 2;
}

/* ---- the problem: focus events, pair relations, tuple constraints ---- */

typedef struct problem {
    const hf_poset *p;
    hf_ctx *ctx;
    uint32_t n, k;
    unsigned d;        /* min(d, k) */
    uint32_t *global;  /* k: local id -> event */
    uint32_t *local;   /* n: event -> local id or NONE */
    int32_t *rel;      /* k * k: rel[a * k + b], a before b */
    uint32_t pairs;    /* P: free pairs */
    uint64_t tuples;   /* admissible d-tuples (before merging) */
    bool antichain;    /* no two focus events comparable */
    int32_t *sets;     /* count * (d - 1) codes, sorted, 0-padded: the constraints */
    uint32_t *set_len; /* count */
    size_t count, cap;
    size_t singles; /* constraints of one pair (the first `singles` after sorting by length) */
    uint32_t *pair_a, *pair_b; /* P: the free pairs' events, pair_a < pair_b */
} problem;

static void problem_free(problem *q)
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

static int32_t rel(const problem *q, uint32_t a, uint32_t b) { return q->rel[a * q->k + b]; }

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

static unsigned set_stride(const problem *q) { return q->d > 1 ? q->d - 1 : 1; }

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

/* ---- families of local sequences ---- */

typedef struct rows {
    uint32_t *v; /* m * k local ids */
    size_t m, cap;
} rows;

static hf_status rows_push(hf_ctx *ctx, rows *f, uint32_t k, const uint32_t *seq)
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
static hf_status rows_irredundant(const problem *q, rows *f, bool *hitting, hf_error *err)
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
static hf_status rows_to_family(const problem *q, const rows *f, hf_family **out, hf_error *err)
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
static hf_status family_to_rows(const problem *q, const hf_family *fam, rows *f, hf_error *err)
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
        if (rows_push(q->ctx, f, q->k, seq))
            st = hf_i_fail(err, HF_ENOMEM, 0, 0, "out of memory");
    }
    hf_i_free(q->ctx, seq);
    return st;
}

/* ---- the SAT search ---- */

typedef struct search_result {
    size_t lower;   /* proved lower bound */
    bool proved;    /* the best size (family or upper bound) is the minimum */
    bool exhausted; /* the budget ran out */
    uint64_t conflicts;
    unsigned calls;
} search_result;

#ifdef HF_HAVE_SAT

typedef struct sat {
    CCaDiCaL *s;
    const problem *q;
    uint32_t R;
    int y0, e0;
    uint64_t learned;
    int clause[HF_MAX_D + 4];
    unsigned len;
    bool satisfied;
} sat;

static void on_learn(void *state, int *clause)
{
    (void)clause;
    ((sat *)state)->learned++;
}

static int xvar(const sat *S, uint32_t r, uint32_t i)
{
    return (int)(1 + (uint64_t)r * S->q->pairs + i);
}

/* Literal "code holds in row r" (code = +-(free pair index + 1)). */
static int xlit(const sat *S, uint32_t r, int32_t code)
{
    int v = xvar(S, r, (uint32_t)(code > 0 ? code : -code) - 1);
    return code > 0 ? v : -v;
}

static void cl_begin(sat *S)
{
    S->len = 0;
    S->satisfied = false;
}

static void cl_lit(sat *S, int lit) { S->clause[S->len++] = lit; }

/* A pair relation of row r as a literal, negated when !positive; constants decide. */
static void cl_rel(sat *S, uint32_t r, int32_t rl, bool positive)
{
    if (rl == REL_TRUE || rl == REL_FALSE) {
        if ((rl == REL_TRUE) == positive)
            S->satisfied = true;
        return;
    }
    int lit = xlit(S, r, rl);
    cl_lit(S, positive ? lit : -lit);
}

static void cl_end(sat *S)
{
    if (S->satisfied)
        return;
    for (unsigned i = 0; i < S->len; i++)
        ccadical_add(S->s, S->clause[i]);
    ccadical_add(S->s, 0);
}

static int yvar(const sat *S, uint32_t r, size_t u)
{
    const problem *q = S->q;
    return (int)(S->y0 + (uint64_t)r * (q->count - q->singles) + (u - q->singles));
}

static int evar(const sat *S, uint32_t r, uint32_t i)
{
    return (int)(S->e0 + (uint64_t)r * (S->q->pairs - 1) + (i - 1));
}

/* Row r a copy of row r - 1. */
static void tie_row(sat *S, uint32_t r)
{
    for (uint32_t i = 0; i < S->q->pairs; i++) {
        int a = xvar(S, r, i), b = xvar(S, r - 1, i);
        ccadical_add(S->s, -a);
        ccadical_add(S->s, b);
        ccadical_add(S->s, 0);
        ccadical_add(S->s, a);
        ccadical_add(S->s, -b);
        ccadical_add(S->s, 0);
    }
}

static uint64_t literal_estimate(const problem *q, uint64_t R)
{
    uint64_t k = q->k, triples = k * (k - 1) * (k - 2) / 6 + 1;
    uint64_t longer = q->count - q->singles;
    return R * (6 * triples + 2 * longer * set_stride(q) + 11 * (uint64_t)q->pairs) + q->count * R;
}

static hf_status encode(sat *S, const problem *q, uint32_t R, hf_error *err)
{
    if (literal_estimate(q, R) > HF_EXACT_MAX_LITERALS)
        return hf_i_fail(err, HF_ETOOLARGE, 0, 0,
                         "method exact: the encoding of %" PRIu32 " schedules of this order "
                         "would have more than %" PRIu64 " literals",
                         R, (uint64_t)HF_EXACT_MAX_LITERALS);
    S->q = q;
    S->R = R;
    uint64_t P = q->pairs, longer = q->count - q->singles;
    S->y0 = (int)(1 + R * P);
    S->e0 = (int)(S->y0 + R * longer);
    S->s = ccadical_init();
    if (!S->s)
        return hf_i_fail(err, HF_ENOMEM, 0, 0, "out of memory");
    ccadical_set_option(S->s, "quiet", 1); /* the library never prints */
    ccadical_set_learn(S->s, S, INT32_MAX, on_learn);
    uint32_t k = q->k;
    for (uint32_t r = 0; r < R; r++) {
        /* no 3-cycle */
        for (uint32_t a = 0; a < k; a++)
            for (uint32_t b = a + 1; b < k; b++)
                for (uint32_t c = b + 1; c < k; c++) {
                    int32_t ab = rel(q, a, b), bc = rel(q, b, c), ca = rel(q, c, a);
                    for (int pos = 0; pos < 2; pos++) {
                        cl_begin(S);
                        cl_rel(S, r, ab, pos);
                        cl_rel(S, r, bc, pos);
                        cl_rel(S, r, ca, pos);
                        cl_end(S);
                    }
                }
        /* longer constraints: row variable implies each pair */
        unsigned e = set_stride(q);
        for (size_t u = q->singles; u < q->count; u++)
            for (unsigned t = 0; t < q->set_len[u]; t++) {
                ccadical_add(S->s, -yvar(S, r, u));
                ccadical_add(S->s, xlit(S, r, q->sets[u * e + t]));
                ccadical_add(S->s, 0);
            }
    }
    /* coverage */
    for (size_t u = 0; u < q->count; u++) {
        for (uint32_t r = 0; r < R; r++)
            ccadical_add(S->s,
                         u < q->singles ? xlit(S, r, q->sets[u * set_stride(q)]) : yvar(S, r, u));
        ccadical_add(S->s, 0);
    }
    /* symmetry */
    uint32_t first = 0;
    if (q->antichain && P > 0) {
        for (uint32_t i = 0; i < P; i++) {
            ccadical_add(S->s, xvar(S, 0, i));
            ccadical_add(S->s, 0);
        }
        first = 1;
    }
    for (uint32_t r = first; r + 1 < R && P > 0; r++) {
        for (uint32_t i = 0; i < P; i++) {
            int x = xvar(S, r, i), y = xvar(S, r + 1, i);
            /* equal so far and x set: y set */
            if (i > 0)
                ccadical_add(S->s, -evar(S, r, i));
            ccadical_add(S->s, -x);
            ccadical_add(S->s, y);
            ccadical_add(S->s, 0);
            if (i + 1 < P) { /* equal so far and equal here: equal so far at i + 1 */
                for (int both = 0; both < 2; both++) {
                    if (i > 0)
                        ccadical_add(S->s, -evar(S, r, i));
                    ccadical_add(S->s, both ? -x : x);
                    ccadical_add(S->s, both ? -y : y);
                    ccadical_add(S->s, evar(S, r, i + 1));
                    ccadical_add(S->s, 0);
                }
            }
        }
    }
    return HF_OK;
}

/* Row r of the model as a sequence. */
static void extract_row(const sat *S, uint32_t r, uint32_t *cnt, uint32_t *seq)
{
    const problem *q = S->q;
    for (uint32_t a = 0; a < q->k; a++) {
        cnt[a] = 0;
        for (uint32_t b = 0; b < q->k; b++) {
            int32_t rl = b == a ? REL_FALSE : rel(q, b, a);
            bool before =
                rl == REL_TRUE || (rl != REL_FALSE && ccadical_val(S->s, xlit(S, r, rl)) > 0);
            cnt[a] += before;
        }
    }
    for (uint32_t a = 0; a < q->k; a++)
        seq[cnt[a]] = a;
}

static hf_status search(problem *q, rows *best, size_t upper, size_t lower, uint64_t budget,
                        uint64_t per_call, bool one_step, search_result *res, hf_error *err)
{
    memset(res, 0, sizeof *res);
    res->lower = lower;
    if (upper <= lower) {
        res->proved = true;
        return HF_OK;
    }
    uint32_t R = upper - 1 > HF_EXACT_MAX_ROWS ? HF_EXACT_MAX_ROWS : (uint32_t)(upper - 1);
    sat S;
    memset(&S, 0, sizeof S);
    hf_status st = encode(&S, q, R, err);
    rows found = {NULL, 0, 0};
    uint32_t *cnt = hf_i_alloc_array(q->ctx, q->k ? q->k : 1, sizeof *cnt);
    uint32_t *seq = hf_i_alloc_array(q->ctx, q->k ? q->k : 1, sizeof *seq);
    if (!st && (!cnt || !seq))
        st = hf_i_fail(err, HF_ENOMEM, 0, 0, "out of memory");
    uint32_t j = R;
    while (!st) {
        if (S.learned >= budget) {
            res->exhausted = true;
            break;
        }
        uint64_t left = budget - S.learned;
        left = per_call && per_call < left ? per_call : left;
        ccadical_limit(S.s, "conflicts", left > INT32_MAX ? INT32_MAX : (int)left);
        int r = ccadical_solve(S.s);
        res->calls++;
        if (r == 0) {
            res->exhausted = true;
            break;
        }
        if (r == 20) {
            res->lower = j + 1 > res->lower ? j + 1 : res->lower;
            res->proved = res->lower >= (best->m ? best->m : upper);
            break;
        }
        found.m = 0;
        for (uint32_t i = 0; i < j && !st; i++) {
            extract_row(&S, i, cnt, seq);
            if (rows_push(q->ctx, &found, q->k, seq))
                st = hf_i_fail(err, HF_ENOMEM, 0, 0, "out of memory");
        }
        bool hitting = false;
        if (st || (st = rows_irredundant(q, &found, &hitting, err)))
            break;
        if (!hitting) {
            st = hf_i_fail(err, HF_ESTATE, 0, 0,
                           "internal error: the SAT model of method exact misses a tuple");
            break;
        }
        rows sw = *best;
        *best = found;
        found = sw;
        if (best->m <= res->lower) {
            res->proved = true;
            break;
        }
        if (one_step)
            break;
        uint32_t target = (uint32_t)best->m - 1;
        for (uint32_t t = target > 0 ? target : 1; t < j; t++)
            tie_row(&S, t);
        j = target;
    }
    res->conflicts = S.learned;
    if (S.s)
        ccadical_release(S.s);
    hf_i_free(q->ctx, found.v);
    hf_i_free(q->ctx, cnt);
    hf_i_free(q->ctx, seq);
    return st;
}

#else

static hf_status search(problem *q, rows *best, size_t upper, size_t lower, uint64_t budget,
                        uint64_t per_call, bool one_step, search_result *res, hf_error *err)
{
    (void)q, (void)best, (void)upper, (void)lower, (void)budget, (void)per_call, (void)one_step;
    (void)res;
    return hf_i_fail(err, HF_EUNSUPPORTED, 0, 0, "%s", missing_sat);
}

#endif

/* ---- the problem of a call ---- */

/* Arguments, the SAT solver's presence, and the limits; then the constraints. */
static hf_status prepare(problem *q, const hf_poset *p, unsigned d, const uint32_t *focus,
                         size_t focus_count, hf_error *err)
{
    memset(q, 0, sizeof *q);
    if (!p)
        return hf_i_fail(err, HF_EINVAL, 0, 0, "invalid argument");
    if (d < 1 || d > HF_MAX_D)
        return hf_i_fail(err, HF_EINVAL, 0, 0, "d must be between 1 and %u (got %u)", HF_MAX_D, d);
    if (focus_count && !focus)
        return hf_i_fail(err, HF_EINVAL, 0, 0, "focus_count without a focus array");
    for (size_t i = 0; i < focus_count; i++)
        if (focus[i] >= p->n)
            return hf_i_fail(err, HF_EINVAL, 0, 0, "focus event id %" PRIu32 " out of range",
                             focus[i]);
    if (!hf_exact_available())
        return hf_i_fail(err, HF_EUNSUPPORTED, 0, 0, "%s", missing_sat);
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
        problem_free(q);
    return st;
}

/* Kuhn's augmenting path from a over the pairs a < b (match[b]: its partner or NONE). */
static bool augment(const problem *q, uint32_t a, uint32_t *match, uint8_t *seen)
{
    for (uint32_t b = 0; b < q->k; b++) {
        if (seen[b] || rel(q, a, b) != REL_TRUE)
            continue;
        seen[b] = 1;
        if (match[b] == NONE || augment(q, match[b], match, seen)) {
            match[b] = a;
            return true;
        }
    }
    return false;
}

/* The width of the order on the k events: k minus a maximum matching of a < b (Dilworth: the
 * fewest chains that cover the order, through Fulkerson's bipartite graph). O(k^3). */
static hf_status width(const problem *q, uint32_t *w, hf_error *err)
{
    size_t k1 = q->k ? q->k : 1;
    uint32_t *match = hf_i_alloc_array(q->ctx, k1, sizeof *match);
    uint8_t *seen = hf_i_alloc_array(q->ctx, k1, 1);
    if (!match || !seen) {
        hf_i_free(q->ctx, match);
        hf_i_free(q->ctx, seen);
        return hf_i_fail(err, HF_ENOMEM, 0, 0, "out of memory");
    }
    uint32_t matched = 0;
    for (uint32_t b = 0; b < q->k; b++)
        match[b] = NONE;
    for (uint32_t a = 0; a < q->k; a++) {
        memset(seen, 0, q->k);
        matched += augment(q, a, match, seen);
    }
    *w = q->k - matched;
    hf_i_free(q->ctx, match);
    hf_i_free(q->ctx, seen);
    return HF_OK;
}

/* The smallest 3-hitting families of antichains of w = 3..8 events, each proved by this method
 * (papers/smallest/README.md; they agree with Chee, Colbourn, Horsley and Zhou, "Sequence
 * covering arrays", SIAM J. Discrete Math. 2013). An antichain of w events inside an order
 * makes every 3-hitting family of the order 3-hitting for it. */
static const uint8_t scan3[] = {0, 1, 2, 6, 6, 7, 8, 8, 8};

/* The best bound known without solving: hf_count_lower_bound (without a focus set), 1 or 2,
 * and for d = 3 the antichain table above at the order's width (at k - 1 for an antichain of
 * k events). */
static hf_status lower_bound(const problem *q, bool focus, unsigned d, size_t *out, hf_error *err)
{
    *out = q->k == 0 ? 0 : q->pairs > 0 && q->d >= 2 ? 2 : 1;
    /* an antichain's own minimum is left to the solver (the table's entries are proved that
     * way): it is bounded by the table at one event less */
    if (q->d == 3) {
        uint32_t w = 0;
        hf_status st = q->antichain ? HF_OK : width(q, &w, err);
        if (st)
            return st;
        if (q->antichain)
            w = q->k - 1;
        size_t t = scan3[w < 8 ? w : 8];
        *out = t > *out ? t : *out;
    }
    if (focus || q->k == 0)
        return HF_OK;
    mpz_t v;
    mpz_init(v);
    hf_error e;
    hf_status st = hf_count_lower_bound(q->p, d, v, &e);
    if (st == HF_ENOMEM)
        st = hf_i_fail(err, st, 0, 0, "out of memory");
    else if (st == HF_OK && mpz_cmp_ui(v, (unsigned long)*out) > 0 &&
             mpz_cmp_ui(v, HF_EXACT_MAX_ROWS + 1u) <= 0)
        *out = (size_t)mpz_get_ui(v);
    else
        st = HF_OK;
    mpz_clear(v);
    return st;
}

/* The smallest family among the constructions that predict cheaply and, on small orders,
 * greedy; else greedy (d <= 4) or chains. */
static hf_status start_family(const hf_poset *p, unsigned d, const uint32_t *focus,
                              size_t focus_count, hf_family **out, hf_error *err)
{
    static const hf_method cheap[] = {HF_METHOD_DFS, HF_METHOD_DOUBLETREE, HF_METHOD_SIMPLE,
                                      HF_METHOD_SCRAMBLE, HF_METHOD_PATTERN};
    hf_gen_options o;
    hf_gen_options_init(&o);
    o.d = d;
    o.focus = focus;
    o.focus_count = focus_count;
    hf_method best = HF_METHOD_AUTO;
    uint64_t best_size = 0;
    for (size_t i = 0; i < sizeof cheap / sizeof cheap[0]; i++) {
        o.method = cheap[i];
        uint64_t size;
        hf_status st = hf_method_predict(p, &o, &size, NULL, NULL);
        if (st == HF_ENOMEM)
            return hf_i_fail(err, st, 0, 0, "out of memory");
        if (!st && (best == HF_METHOD_AUTO || size < best_size)) {
            best = cheap[i];
            best_size = size;
        }
    }
    /* greedy too on small orders other than trees (a second or so at 32 events): on
     * antichains at d = 4 it is far smaller than the constructions; on trees the solver goes
     * down from theirs in less time than greedy takes */
    bool trees =
        (p->shape & (HF_SHAPE_FOREST | HF_SHAPE_INFOREST)) && !(p->shape & HF_SHAPE_ANTICHAIN);
    if (d <= 4 && p->n <= START_GREEDY_MAX_EVENTS && !trees) {
        o.method = HF_METHOD_GREEDY;
        uint64_t size;
        hf_status st = hf_method_predict(p, &o, &size, NULL, NULL);
        if (st == HF_ENOMEM)
            return hf_i_fail(err, st, 0, 0, "out of memory");
        if (!st && (best == HF_METHOD_AUTO || size < best_size)) {
            best = HF_METHOD_GREEDY;
            best_size = size;
        }
    }
    o.method = best != HF_METHOD_AUTO ? best : d <= 4 ? HF_METHOD_GREEDY : HF_METHOD_CHAINS;
    hf_family *f = NULL;
    hf_status st = hf_family_new(p->ctx, p->n, &f);
    if (st)
        return hf_i_fail(err, st, 0, 0, "out of memory");
    if ((st = hf_generate(p, &o, hf_family_sink(f), NULL, err))) {
        hf_family_free(f);
        return st;
    }
    *out = f;
    return HF_OK;
}

static void fill_result(hf_exact_result *r, const problem *q, size_t schedules,
                        const search_result *s)
{
    if (!r)
        return;
    memset(r, 0, sizeof *r);
    r->schedules = schedules;
    r->lower_bound = s->proved ? schedules : s->lower;
    r->proved = s->proved;
    r->exhausted = s->exhausted;
    r->conflicts = s->conflicts;
    r->calls = s->calls;
    r->d = q->d;
}

/* The search from a start family (or, with `upper`, only its size) into *out (NULL when only
 * the size was known and nothing smaller was found). */
static hf_status run(const hf_poset *p, unsigned d, const uint32_t *focus, size_t focus_count,
                     const hf_family *start, size_t upper, uint64_t budget, uint64_t per_call,
                     hf_family **out, hf_exact_result *result, hf_error *err)
{
    problem q;
    hf_status st = prepare(&q, p, d, focus, focus_count, err);
    if (st)
        return st;
    rows best = {NULL, 0, 0};
    hf_family *built = NULL;
    search_result sr;
    memset(&sr, 0, sizeof sr);
    size_t lower = 0;
    if ((st = lower_bound(&q, focus_count > 0, d, &lower, err)))
        goto done;
    if (!upper && !start) {
        if ((st = start_family(p, d, focus, focus_count, &built, err)))
            goto done;
        start = built;
    }
    if (start) {
        bool hitting = false;
        if ((st = family_to_rows(&q, start, &best, err)) ||
            (st = rows_irredundant(&q, &best, &hitting, err)))
            goto done;
        if (!hitting) {
            st = hf_i_fail(err, HF_EINVAL, 0, 0, "the start family is not %u-hitting", q.d);
            goto done;
        }
        upper = best.m;
    }
    if ((st = search(&q, &best, upper, lower, budget, per_call, false, &sr, err)))
        goto done;
    *out = NULL;
    if (best.m > 0 || q.k == 0)
        st = rows_to_family(&q, &best, out, err);
    if (!st)
        fill_result(result, &q, best.m ? best.m : upper, &sr);
done:
    hf_family_free(built);
    hf_i_free(q.ctx, best.v);
    problem_free(&q);
    return st;
}

hf_status hf_exact_solve(const hf_poset *p, const hf_exact_options *o, hf_family **out,
                         hf_exact_result *result, hf_error *err)
{
    hf_i_error_clear(err);
    if (!p || !o || !out)
        return hf_i_fail(err, HF_EINVAL, 0, 0, "invalid argument");
    if (o->start && o->start->n != p->n)
        return hf_i_fail(err, HF_EINVAL, 0, 0,
                         "the start family has %" PRIu32 " events, the order %" PRIu32, o->start->n,
                         p->n);
    if (o->start && o->d >= 1 && o->d <= HF_MAX_D) {
        hf_verify_options vo = {.d = o->d, .focus = o->focus, .focus_count = o->focus_count};
        hf_verify_result vr;
        hf_status st = hf_verify(p, o->start, &vo, &vr, err);
        if (st)
            return st;
        if (!vr.hitting)
            return hf_i_fail(err, HF_EINVAL, 0, 0, "the start family is not %u-hitting", vr.d);
    }
    uint64_t budget = o->conflicts ? o->conflicts : HF_EXACT_DEFAULT_CONFLICTS;
    hf_family *f = NULL;
    hf_status st = run(p, o->d, o->focus, o->focus_count, o->start, 0, budget, 0, &f, result, err);
    if (!st)
        *out = f;
    return st;
}

hf_status hf_exact_remove_one(const hf_poset *p, hf_family *f, const hf_exact_options *o,
                              hf_exact_verdict *verdict, hf_exact_result *result, hf_error *err)
{
    hf_i_error_clear(err);
    if (!p || !f || !o || !verdict)
        return hf_i_fail(err, HF_EINVAL, 0, 0, "invalid argument");
    if (f->n != p->n)
        return hf_i_fail(err, HF_EMISMATCH, 0, 0,
                         "the family has %" PRIu32 " events, the order %" PRIu32, f->n, p->n);
    problem q;
    hf_status st = prepare(&q, p, o->d, o->focus, o->focus_count, err);
    if (st)
        return st;
    hf_verify_options vo = {.d = o->d, .focus = o->focus, .focus_count = o->focus_count};
    hf_verify_result vr;
    rows best = {NULL, 0, 0};
    hf_family *g = NULL;
    search_result sr;
    memset(&sr, 0, sizeof sr);
    size_t lower = 0;
    if ((st = hf_verify(p, f, &vo, &vr, err)))
        goto done;
    if (!vr.hitting) {
        st = hf_i_fail(err, HF_EMISMATCH, 0, 0, "the family is not %u-hitting", vr.d);
        goto done;
    }
    if ((st = lower_bound(&q, o->focus_count > 0, o->d, &lower, err)) ||
        (st = family_to_rows(&q, f, &best, err)))
        goto done;
    size_t m = best.m;
    uint64_t budget = o->conflicts ? o->conflicts : HF_EXACT_DEFAULT_CONFLICTS;
    if ((st = search(&q, &best, m, lower, budget, 0, true, &sr, err)))
        goto done;
    if (best.m < m) {
        bool hitting;
        if ((st = rows_irredundant(&q, &best, &hitting, err)) ||
            (st = rows_to_family(&q, &best, &g, err)))
            goto done;
        memcpy(f->rows, g->rows, g->m * (size_t)p->n * sizeof *f->rows);
        f->m = g->m;
        f->lined = 0;
        *verdict = HF_EXACT_IMPROVED;
    } else {
        *verdict = sr.proved ? HF_EXACT_MINIMAL : HF_EXACT_EXHAUSTED;
    }
    fill_result(result, &q, best.m, &sr);
done:
    hf_family_free(g);
    hf_i_free(q.ctx, best.v);
    problem_free(&q);
    return st;
}

/* ---- the method ---- */

static hf_status exact_check(const hf_poset *p, const hf_gen_options *opt, hf_error *err)
{
    problem q;
    hf_status st = prepare(&q, p, opt->d, opt->focus, opt->focus_count, err);
    if (st == HF_ETOOLARGE)
        st = HF_EUNSUPPORTED; /* the message says why */
    if (!st)
        problem_free(&q);
    return st;
}

static uint64_t method_budget(const hf_gen_options *opt, bool for_auto)
{
    return opt->conflicts ? opt->conflicts
           : for_auto     ? HF_EXACT_AUTO_CONFLICTS
                          : HF_EXACT_DEFAULT_CONFLICTS;
}

hf_status hf_i_exact_below(const hf_poset *p, const hf_gen_options *opt, uint64_t upper,
                           hf_family **out, bool *proved, hf_error *err)
{
    hf_exact_result r;
    *out = NULL;
    hf_status st = run(p, opt->d, opt->focus, opt->focus_count, NULL, (size_t)upper,
                       method_budget(opt, true), (method_budget(opt, true) + 2) / 3, out, &r, err);
    if (!st && proved)
        *proved = r.proved;
    return st;
}

static hf_status exact_predict(const hf_poset *p, const hf_gen_options *opt, mpz_t size,
                               hf_error *err)
{
    hf_family *f = NULL;
    hf_exact_result r;
    hf_status st = run(p, opt->d, opt->focus, opt->focus_count, NULL, 0, method_budget(opt, false),
                       0, &f, &r, err);
    if (!st)
        mpz_set_ui(size, (unsigned long)hf_family_size(f));
    hf_family_free(f);
    return st;
}

static hf_status exact_generate(const hf_poset *p, const hf_gen_options *opt, hf_sink sink,
                                hf_error *err)
{
    hf_family *f = NULL;
    hf_exact_result r;
    hf_status st = run(p, opt->d, opt->focus, opt->focus_count, NULL, 0, method_budget(opt, false),
                       0, &f, &r, err);
    for (size_t i = 0; !st && f && i < f->m; i++)
        st = sink.put(sink.user, f->rows + i * (size_t)p->n, p->n);
    hf_family_free(f);
    return st;
}

/* auto weighs exact on small orders, where its budget (HF_EXACT_AUTO_CONFLICTS) mostly proves
 * the minimum in milliseconds (docs/bounds.md); it looks for a family smaller than the best
 * other method's (hf_i_exact_below). */
static hf_i_auto_rule exact_auto_rule(const hf_poset *p, unsigned d)
{
    bool weigh = d >= 2 && p->n >= 3 && p->n <= (d == 2 ? 16u : d == 3 ? 12u : 8u);
    return weigh ? HF_I_AUTO_WEIGH : HF_I_AUTO_ADVISE;
}

const hf_i_method hf_i_method_exact = {
    .id = HF_METHOD_EXACT,
    .name = "exact",
    .check = exact_check,
    .predict = exact_predict,
    .generate = exact_generate,
    .predict_runs = true,
    .auto_rule = exact_auto_rule,
    .auto_below = hf_i_exact_below,
};

/* ---- one refutation, for hitfam/bounds.h ---- */

hf_status hf_i_exact_refute(const hf_poset *p, unsigned d, const uint32_t *events, size_t count,
                            size_t R, uint64_t budget, int *answer, uint64_t *conflicts,
                            hf_error *err)
{
    *answer = HF_I_UNKNOWN;
    *conflicts = 0;
    if (!events || !count || R < 1 || R > HF_EXACT_MAX_ROWS)
        return hf_i_fail(err, HF_EINVAL, 0, 0, "invalid argument");
    problem q;
    hf_status st = prepare(&q, p, d, events, count, err);
    if (st)
        return st;
    if (q.count == 0) { /* nothing to hit beyond what every schedule hits */
        *answer = HF_I_FOUND;
        problem_free(&q);
        return HF_OK;
    }
#ifdef HF_HAVE_SAT
    sat S;
    memset(&S, 0, sizeof S);
    st = encode(&S, &q, (uint32_t)R, err);
    if (!st) {
        ccadical_limit(S.s, "conflicts", budget > INT32_MAX ? INT32_MAX : (int)budget);
        int r = ccadical_solve(S.s);
        *answer = r == 20 ? HF_I_REFUTED : r == 10 ? HF_I_FOUND : HF_I_UNKNOWN;
        *conflicts = S.learned;
    }
    if (S.s)
        ccadical_release(S.s);
#else
    (void)budget;
    st = hf_i_fail(err, HF_EUNSUPPORTED, 0, 0, "%s", missing_sat);
#endif
    problem_free(&q);
    return st;
}
