/* Method exact's SAT encoding and its search for the minimum over CaDiCaL's C API, and the
 * single refutation behind hitfam/bounds.h.
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
 * events maps any row to it) and the others are sorted. */
#include <string.h>

#include "bounds_i.h"
#include "exact_i.h"
#include "hitfam/exact.h"

#ifdef HF_HAVE_SAT
#include <ccadical.h>

/* Conflicts between two reports to the progress callback within one solver call. */
#define POLL_CONFLICTS 256u

typedef struct sat {
    CCaDiCaL *s;
    const problem *q;
    uint32_t R;
    int y0, e0;
    uint64_t learned;
    int clause[HF_MAX_D + 4];
    unsigned len;
    bool satisfied;
    /* progress (hf_ctx_set_progress): conflicts spent of the budget, reported between calls and,
     * through the solver's terminate callback, every POLL_CONFLICTS conflicts within one; a stop
     * is kept in `stop` (the callback's message in *err) and ends the call */
    uint64_t budget, next_poll;
    hf_error *err;
    hf_status stop;
} sat;

static void on_learn(void *state, int *clause)
{
    (void)clause;
    ((sat *)state)->learned++;
}

/* Report the conflicts spent; HF_EABORTED once the callback asked to stop. */
static hf_status poll(sat *S)
{
    if (!S->stop) {
        S->next_poll = S->learned + POLL_CONFLICTS;
        S->stop = hf_i_progress(S->q->ctx, "exact", S->learned, S->budget, S->err);
    }
    return S->stop;
}

static int on_terminate(void *state)
{
    sat *S = state;
    return (S->learned >= S->next_poll ? poll(S) : S->stop) != HF_OK;
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

/* The clauses for R rows in a new solver S->s (released by the caller, also on error); `budget`
 * is the total that progress reports measure against. */
static hf_status encode(sat *S, const problem *q, uint32_t R, uint64_t budget, hf_error *err)
{
    if (literal_estimate(q, R) > HF_EXACT_MAX_LITERALS)
        return hf_i_fail(err, HF_ETOOLARGE, 0, 0,
                         "method exact: the encoding of %" PRIu32 " schedules of this order "
                         "would have more than %" PRIu64 " literals",
                         R, (uint64_t)HF_EXACT_MAX_LITERALS);
    S->q = q;
    S->R = R;
    S->budget = budget;
    S->err = err;
    uint64_t P = q->pairs, longer = q->count - q->singles;
    S->y0 = (int)(1 + R * P);
    S->e0 = (int)(S->y0 + R * longer);
    S->s = ccadical_init();
    if (!S->s)
        return hf_i_fail(err, HF_ENOMEM, 0, 0, "out of memory");
    ccadical_set_option(S->s, "quiet", 1); /* the library never prints */
    ccadical_set_learn(S->s, S, INT32_MAX, on_learn);
    if (q->ctx && q->ctx->progress)
        ccadical_set_terminate(S->s, S, on_terminate);
    uint32_t k = q->k;
    for (uint32_t r = 0; r < R; r++) {
        if (poll(S)) /* a large encoding takes a while too */
            return S->stop;
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

hf_status hf_i_exact_search(problem *q, rows *best, size_t upper, size_t lower, uint64_t budget,
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
    hf_status st = encode(&S, q, R, budget, err);
    rows found = {NULL, 0, 0};
    uint32_t *cnt = hf_i_alloc_array(q->ctx, q->k ? q->k : 1, sizeof *cnt);
    uint32_t *seq = hf_i_alloc_array(q->ctx, q->k ? q->k : 1, sizeof *seq);
    if (!st && (!cnt || !seq))
        st = hf_i_fail(err, HF_ENOMEM, 0, 0, "out of memory");
    uint32_t j = R;
    while (!st) {
        if ((st = poll(&S)))
            break;
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
            st = S.stop; /* stopped by the progress callback, or out of budget */
            res->exhausted = !st;
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
            if (hf_i_exact_rows_push(q->ctx, &found, q->k, seq))
                st = hf_i_fail(err, HF_ENOMEM, 0, 0, "out of memory");
        }
        bool hitting = false;
        if (st || (st = hf_i_exact_rows_irredundant(q, &found, &hitting, err)))
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

hf_status hf_i_exact_search(problem *q, rows *best, size_t upper, size_t lower, uint64_t budget,
                            uint64_t per_call, bool one_step, search_result *res, hf_error *err)
{
    (void)q, (void)best, (void)upper, (void)lower, (void)budget, (void)per_call, (void)one_step;
    (void)res;
    return hf_i_fail(err, HF_EUNSUPPORTED, 0, 0, "%s", hf_i_exact_missing_sat);
}

#endif

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
    hf_status st = hf_i_exact_prepare(&q, p, d, events, count, err);
    if (st)
        return st;
    if (q.count == 0) { /* nothing to hit beyond what every schedule hits */
        *answer = HF_I_FOUND;
        hf_i_exact_problem_free(&q);
        return HF_OK;
    }
#ifdef HF_HAVE_SAT
    sat S;
    memset(&S, 0, sizeof S);
    st = encode(&S, &q, (uint32_t)R, budget, err);
    if (!st) {
        ccadical_limit(S.s, "conflicts", budget > INT32_MAX ? INT32_MAX : (int)budget);
        int r = ccadical_solve(S.s);
        *answer = r == 20 ? HF_I_REFUTED : r == 10 ? HF_I_FOUND : HF_I_UNKNOWN;
        *conflicts = S.learned;
        st = S.stop;
    }
    if (S.s)
        ccadical_release(S.s);
#else
    (void)budget;
    st = hf_i_fail(err, HF_EUNSUPPORTED, 0, 0, "%s", hf_i_exact_missing_sat);
#endif
    hf_i_exact_problem_free(&q);
    return st;
}
