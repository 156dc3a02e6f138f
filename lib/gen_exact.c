/* Method exact and hitfam/exact.h: smallest d-hitting families of small orders by incremental SAT
 * (CaDiCaL's C API), going down from a known family until the solver refutes one size less.
 *
 * Everything works on the k focus events (all events without a focus set) and the order they
 * induce: a family of that order's linear extensions extends schedule by schedule to the whole
 * order (non-focus events placed as soon as they are available), and restricting a family of
 * the whole order gives one of the induced order, so both have the same minimum. The problem
 * (focus events, constraints, rows) is in lib/exact_problem.c, the encoding and the solver calls
 * in lib/exact_sat.c.
 *
 * Search: start from a known family of M schedules (given, or the smallest construction), ask
 * for R = M - 1 rows; each family found is cut down to an irredundant one of j rows, and the
 * next call asks for j - 1 by tying rows j - 1 .. R - 1 to row j - 2 (equality clauses, so the
 * solver keeps what it learned). An UNSAT answer proves the last family minimum; reaching
 * hf_count_lower_bound proves it without a call. The budget counts conflicts (learned clauses,
 * through the learn callback) over all calls: deterministic. */
#include <string.h>

#include "exact_i.h"
#include "family_i.h"
#include "gen.h"
#include "hitfam/count.h"
#include "hitfam/exact.h"
#include "poset_i.h"

/* Orders on which the start family may also come from greedy. */
#define START_GREEDY_MAX_EVENTS 32u

const char hf_i_exact_missing_sat[] =
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
    hf_status st = hf_i_exact_prepare(&q, p, d, focus, focus_count, err);
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
        if ((st = hf_i_exact_family_to_rows(&q, start, &best, err)) ||
            (st = hf_i_exact_rows_irredundant(&q, &best, &hitting, err)))
            goto done;
        if (!hitting) {
            st = hf_i_fail(err, HF_EINVAL, 0, 0, "the start family is not %u-hitting", q.d);
            goto done;
        }
        upper = best.m;
    }
    if ((st = hf_i_exact_search(&q, &best, upper, lower, budget, per_call, false, &sr, err)))
        goto done;
    *out = NULL;
    if (best.m > 0 || q.k == 0)
        st = hf_i_exact_rows_to_family(&q, &best, out, err);
    if (!st)
        fill_result(result, &q, best.m ? best.m : upper, &sr);
done:
    hf_family_free(built);
    hf_i_free(q.ctx, best.v);
    hf_i_exact_problem_free(&q);
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
    hf_status st = hf_i_exact_prepare(&q, p, o->d, o->focus, o->focus_count, err);
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
        (st = hf_i_exact_family_to_rows(&q, f, &best, err)))
        goto done;
    size_t m = best.m;
    uint64_t budget = o->conflicts ? o->conflicts : HF_EXACT_DEFAULT_CONFLICTS;
    if ((st = hf_i_exact_search(&q, &best, m, lower, budget, 0, true, &sr, err)))
        goto done;
    if (best.m < m) {
        bool hitting;
        if ((st = hf_i_exact_rows_irredundant(&q, &best, &hitting, err)) ||
            (st = hf_i_exact_rows_to_family(&q, &best, &g, err)))
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
    hf_i_exact_problem_free(&q);
    return st;
}

/* ---- the method ---- */

static hf_status exact_check(const hf_poset *p, const hf_gen_options *opt, hf_error *err)
{
    problem q;
    hf_status st = hf_i_exact_prepare(&q, p, opt->d, opt->focus, opt->focus_count, err);
    if (st == HF_ETOOLARGE)
        st = HF_EUNSUPPORTED; /* the message says why */
    if (!st)
        hf_i_exact_problem_free(&q);
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
