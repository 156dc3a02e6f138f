/* The exact counts of enumerations (include/hitfam/enum.h, hf_enum_count): the enumeration
 * itself within a work bound, then dynamic programs over down-sets (traces, preemptions,
 * delays). */
#include <string.h>

#include "count_i.h"
#include "downsets.h"
#include "enum_i.h"
#include "hitfam/count.h"
#include "hitfam/enum.h"

/* Count by running the enumeration, within `budget` steps (0: no bound). */
static hf_status count_by_enum(const hf_poset *p, const hf_enum_options *o, uint64_t budget,
                               mpz_t out, bool *finished, hf_error *err)
{
    *finished = false;
    hf_enum_options eo = *o;
    eo.limit = 0;
    hf_enum *e = NULL;
    hf_status st = hf_enum_new(p, &eo, &e, err);
    if (st)
        return st;
    uint64_t count = 0, reported = 0;
    while (hf_i_enum_advance(e)) {
        count++;
        uint64_t work = hf_i_enum_work(e);
        if (budget && work > budget)
            break;
        /* every 2^20 steps (a few milliseconds) */
        if (work >> 20 != reported) {
            reported = work >> 20;
            if ((st = hf_i_progress(p->ctx, "count", work, budget, err)))
                break;
        }
    }
    if (!st && (!budget || hf_i_enum_work(e) <= budget)) {
        *finished = true;
        hf_i_mpz_set_u64(out, count);
    }
    hf_enum_free(e);
    return st;
}

/* What a dynamic program has spent: states created and steps, and its bound on steps (0: none).
 * An addition to a table of millions of states costs a few cache misses, some 30 times a step
 * of enumeration: it counts DP_ADD_STEPS steps, and listing a down-set's enabled events one
 * per event. */
#define DP_ADD_STEPS 32u

typedef struct dp_budget {
    size_t room; /* states that may still be created */
    uint64_t work, max_work;
    uint64_t reported; /* work >> 20 when progress was last reported */
    hf_error *err;     /* where a stop by the progress callback is explained */
} dp_budget;

/* Add (or, with negate, subtract) v to the value of key, creating the state if needed.
 * HF_ETOOLARGE past HF_ENUM_MAX_STATES states or the budget's steps. The states of a dynamic
 * program over down-sets: a key of KW words (the down-set's bitset, then one word of extra
 * state) and a big number each. */
static hf_status table_add(hf_ctx *ctx, hf_i_downsets *t, const hf_word *key, const mpz_t v,
                           bool negate, dp_budget *b)
{
    b->work += DP_ADD_STEPS;
    if (b->max_work && b->work > b->max_work)
        return HF_ETOOLARGE;
    return hf_i_downsets_add_mpz(ctx, t, key, v, negate, &b->room);
}

/* Report the work every 2^20 steps (a few milliseconds): HF_EABORTED when the progress callback
 * says stop. */
static hf_status dp_progress(hf_ctx *ctx, dp_budget *b)
{
    if (b->work >> 20 == b->reported)
        return HF_OK;
    b->reported = b->work >> 20;
    return hf_i_progress(ctx, "count", b->work, b->max_work, b->err);
}

/* The events outside down-set I whose predecessors are all in I, into list; their number. */
static uint32_t enabled_of(const hf_poset *p, const hf_word *I, uint32_t *list)
{
    uint32_t m = 0;
    for (uint32_t x = 0; x < p->n; x++) {
        if (hf_i_bit_test(I, x))
            continue;
        bool ok = true;
        for (size_t i = p->pred_off[x]; i < p->pred_off[x + 1] && ok; i++)
            ok = hf_i_bit_test(I, p->pred[i]);
        if (ok)
            list[m++] = x;
    }
    return m;
}

/* Preemption- or delay-bounded schedules (`delays`): forward over down-set sizes, the state
 * being the down-set, the last event's thread (+1; 0 before the first event) and the preemptions
 * or delays spent, its value the number of prefixes reaching it. */
static hf_status count_bounded_dp(const hf_poset *p, bool delays, uint32_t K, uint64_t max_work,
                                  mpz_t out, hf_error *err)
{
    hf_ctx *ctx = p->ctx;
    uint32_t n = p->n, T = p->threads.count;
    size_t W = hf_i_words(n), KW = W + 1;
    dp_budget budget = {.room = HF_ENUM_MAX_STATES, .max_work = max_work, .err = err};
    hf_i_downsets cur, nxt;
    hf_i_downsets_init(&cur, KW, sizeof(mpz_t));
    hf_i_downsets_init(&nxt, KW, sizeof(mpz_t));
    hf_word *key = hf_i_calloc(ctx, KW, sizeof *key);
    uint32_t *list = hf_i_alloc_array(ctx, n, sizeof *list);
    uint32_t *tid = hf_i_alloc_array(ctx, n, sizeof *tid);
    /* delays: the enabled events of each thread in the state at hand (0 between states) */
    uint32_t *run = delays ? hf_i_calloc(ctx, (size_t)T + n, sizeof *run) : NULL;
    uint32_t *dcost = delays ? hf_i_alloc_array(ctx, (size_t)T + n, sizeof *dcost) : NULL;
    mpz_t one;
    mpz_init_set_ui(one, 1);
    hf_status st = HF_OK;
    if (!key || !list || !tid || (delays && (!run || !dcost))) {
        st = HF_ENOMEM;
        goto out;
    }
    for (uint32_t v = 0; v < n; v++) {
        uint32_t t = p->threads.of ? p->threads.of[v] : HF_NO_EVENT;
        tid[v] = t != HF_NO_EVENT ? t : T + v;
    }
    if ((st = table_add(ctx, &cur, key, one, false, &budget)))
        goto out;
    for (uint32_t k = 0; k < n; k++) {
        for (size_t s = 0; s < cur.count; s++) {
            const hf_word *I = hf_i_downsets_key(&cur, s);
            uint64_t extra = I[W];
            uint32_t last = (uint32_t)(extra >> 32), pre = (uint32_t)extra;
            uint32_t m = enabled_of(p, I, list);
            budget.work += n;
            if ((st = dp_progress(ctx, &budget)))
                goto out;
            bool runnable = false;
            for (uint32_t i = 0; i < m && !delays && last && !runnable; i++)
                runnable = tid[list[i]] == last - 1;
            if (delays) {
                for (uint32_t i = 0; i < m; i++)
                    run[tid[list[i]]]++;
                hf_i_enum_delay_costs(run, T + n, last ? last - 1 : 0, dcost);
            }
            memcpy(key, I, W * sizeof *key);
            for (uint32_t i = 0; i < m; i++) {
                uint32_t x = list[i];
                uint32_t cost = delays ? dcost[tid[x]] : last && tid[x] != last - 1 && runnable;
                if ((uint64_t)pre + cost > K)
                    continue;
                hf_i_bit_set(key, x);
                key[W] = ((uint64_t)(tid[x] + 1) << 32) | (pre + cost);
                st = table_add(ctx, &nxt, key, hf_i_downsets_mpz(&cur)[s], false, &budget);
                hf_i_bit_clear(key, x);
                if (st)
                    break;
            }
            for (uint32_t i = 0; i < m && delays; i++)
                run[tid[list[i]]] = 0;
            if (st)
                goto out;
        }
        hf_i_downsets_clear_mpz(ctx, &cur);
        cur = nxt;
        hf_i_downsets_init(&nxt, KW, sizeof(mpz_t));
    }
    mpz_set_ui(out, 0);
    for (size_t s = 0; s < cur.count; s++)
        mpz_add(out, out, hf_i_downsets_mpz(&cur)[s]);
out:
    mpz_clear(one);
    hf_i_downsets_clear_mpz(ctx, &cur);
    hf_i_downsets_clear_mpz(ctx, &nxt);
    hf_i_free(ctx, key);
    hf_i_free(ctx, list);
    hf_i_free(ctx, tid);
    hf_i_free(ctx, run);
    hf_i_free(ctx, dcost);
    return st;
}

/* Traces. For a down-set D let f(D) be the number of traces of the linear extensions of the
 * order induced on D. The events that end a trace t (nothing after them in t depends on them)
 * are pairwise independent, maximal in D, and never none for D non-empty; for a set S of such
 * events, the traces in which all of S end are exactly t' S for the traces t' of D - S. So
 * inclusion-exclusion over the non-empty sets S of pairwise non-conflicting events maximal in D
 * (Cartier and Foata's inversion) gives f(D) = sum over S of (-1)^(|S|+1) f(D - S), each trace
 * counted sum over non-empty S within its ending set of (-1)^(|S|+1) = 1 time. Pushed forward:
 * each down-set I adds +-f(I) to I + S for every non-empty set S of enabled events (pairwise
 * unordered) no two of which conflict. */
typedef struct trace_dp {
    const hf_poset *p;
    hf_ctx *ctx;
    size_t W;
    hf_i_downsets *level; /* n + 1 tables, by down-set size */
    uint32_t *list;       /* enabled events of the current down-set */
    uint32_t m;
    uint32_t *chosen;
    hf_word *key;
    dp_budget budget;
} trace_dp;

/* Extend S (chosen[0..size-1], from list positions below `from`) by each later compatible
 * event. */
static hf_status trace_subsets(trace_dp *t, uint32_t k, const mpz_t v, uint32_t from, uint32_t size)
{
    for (uint32_t i = from; i < t->m; i++) {
        uint32_t x = t->list[i];
        bool ok = true;
        for (uint32_t j = 0; j < size && ok; j++)
            ok = !hf_i_conflict(t->p, t->chosen[j], x);
        if (!ok)
            continue;
        t->chosen[size] = x;
        hf_i_bit_set(t->key, x);
        hf_status st =
            table_add(t->ctx, &t->level[k + size + 1], t->key, v, (size + 1) % 2 == 0, &t->budget);
        if (!st)
            st = trace_subsets(t, k, v, i + 1, size + 1);
        hf_i_bit_clear(t->key, x);
        if (st)
            return st;
    }
    return HF_OK;
}

static hf_status count_traces_dp(const hf_poset *p, uint64_t max_work, mpz_t out, hf_error *err)
{
    hf_ctx *ctx = p->ctx;
    uint32_t n = p->n;
    trace_dp t = {.p = p,
                  .ctx = ctx,
                  .W = n ? hf_i_words(n) : 1,
                  .budget = {.room = HF_ENUM_MAX_STATES, .max_work = max_work, .err = err}};
    t.level = hf_i_calloc(ctx, (size_t)n + 1, sizeof *t.level);
    t.list = hf_i_alloc_array(ctx, n, sizeof *t.list);
    t.chosen = hf_i_alloc_array(ctx, n, sizeof *t.chosen);
    t.key = hf_i_calloc(ctx, t.W, sizeof *t.key);
    mpz_t one;
    mpz_init_set_ui(one, 1);
    hf_status st = HF_OK;
    if (!t.level || !t.list || !t.chosen || !t.key) {
        st = HF_ENOMEM;
        goto out;
    }
    for (uint32_t k = 0; k <= n; k++)
        hf_i_downsets_init(&t.level[k], t.W, sizeof(mpz_t));
    if ((st = table_add(ctx, &t.level[0], t.key, one, false, &t.budget)))
        goto out;
    for (uint32_t k = 0; k < n; k++) {
        hf_i_downsets *L = &t.level[k];
        for (size_t s = 0; s < L->count; s++) {
            const hf_word *I = hf_i_downsets_key(L, s);
            if (mpz_sgn(hf_i_downsets_mpz(L)[s]) == 0)
                continue;
            t.m = enabled_of(p, I, t.list);
            t.budget.work += n;
            if ((st = dp_progress(ctx, &t.budget)))
                goto out;
            memcpy(t.key, I, t.W * sizeof *t.key);
            if ((st = trace_subsets(&t, k, hf_i_downsets_mpz(L)[s], 0, 0)))
                goto out;
        }
        hf_i_downsets_clear_mpz(ctx, L);
    }
    if (t.level[n].count == 1)
        mpz_set(out, hf_i_downsets_mpz(&t.level[n])[0]);
    else
        mpz_set_ui(out, 0);
out:
    mpz_clear(one);
    if (t.level)
        for (uint32_t k = 0; k <= n; k++)
            hf_i_downsets_clear_mpz(ctx, &t.level[k]);
    hf_i_free(ctx, t.level);
    hf_i_free(ctx, t.list);
    hf_i_free(ctx, t.chosen);
    hf_i_free(ctx, t.key);
    return st;
}

hf_status hf_i_enum_count_dp(const hf_poset *p, const hf_enum_options *o, mpz_t out)
{
    if (!p || !o || !out)
        return HF_EINVAL;
    if (o->mode == HF_ENUM_TRACES)
        return count_traces_dp(p, o->max_work, out, NULL);
    if (o->mode == HF_ENUM_PREEMPTIONS)
        return count_bounded_dp(p, false, o->preemptions, o->max_work, out, NULL);
    if (o->mode == HF_ENUM_DELAYS)
        return count_bounded_dp(p, true, o->delays, o->max_work, out, NULL);
    return HF_EINVAL;
}

hf_status hf_enum_count(const hf_poset *p, const hf_enum_options *o, mpz_t out, hf_error *err)
{
    hf_i_error_clear(err);
    if (!p || !out)
        return hf_i_fail(err, HF_EINVAL, 0, 0, "invalid argument");
    hf_enum_options def;
    if (!(o = hf_i_enum_options(o, &def, err)))
        return HF_EINVAL;
    if (p->n == 0) {
        mpz_set_ui(out, 1);
        return HF_OK;
    }
    /* Without objects every two events are dependent, and without threads (or with a bound of
     * n - 1) no schedule is refused: these are the linear extensions. */
    hf_enum_options eo = *o;
    if ((eo.mode == HF_ENUM_TRACES && !p->objects.of) ||
        (eo.mode == HF_ENUM_PREEMPTIONS && (!p->threads.of || eo.preemptions >= p->n - 1)))
        eo.mode = HF_ENUM_ALL;
    const char *what = eo.mode == HF_ENUM_ALL           ? "linear extensions"
                       : eo.mode == HF_ENUM_TRACES      ? "traces"
                       : eo.mode == HF_ENUM_PREEMPTIONS ? "preemption-bounded schedules"
                                                        : "delay-bounded schedules";
    bool finished = false;
    hf_status st;
    if (eo.mode == HF_ENUM_ALL) {
        hf_error cerr;
        st = hf_count_linear_extensions(p, out, &cerr);
        if (st != HF_ETOOLARGE) {
            if (st && err)
                *err = cerr;
            return st;
        }
        if ((st = count_by_enum(p, &eo, eo.max_work, out, &finished, err)))
            return st;
        if (finished)
            return HF_OK;
        return hf_i_fail(err, HF_ETOOLARGE, 0, 0,
                         "the order has more than %u down-sets (HF_COUNT_MAX_IDEALS) and its "
                         "linear extensions take more than %" PRIu64
                         " steps to enumerate (max_work): they are not counted",
                         HF_COUNT_MAX_IDEALS, eo.max_work);
    }
    if ((st = count_by_enum(p, &eo, eo.max_work, out, &finished, err)))
        return st;
    if (finished)
        return HF_OK;
    st = eo.mode == HF_ENUM_TRACES ? count_traces_dp(p, eo.max_work, out, err)
         : eo.mode == HF_ENUM_PREEMPTIONS
             ? count_bounded_dp(p, false, eo.preemptions, eo.max_work, out, err)
             : count_bounded_dp(p, true, eo.delays, eo.max_work, out, err);
    if (st == HF_ENOMEM)
        return hf_i_fail(err, st, 0, 0, "out of memory counting %s", what);
    if (st == HF_ETOOLARGE)
        return hf_i_fail(err, st, 0, 0,
                         "counting the %s takes more than %" PRIu64
                         " steps of enumeration (max_work), and more than as many steps or %u "
                         "states (HF_ENUM_MAX_STATES) of dynamic programming over down-sets: "
                         "they are not counted",
                         what, eo.max_work, HF_ENUM_MAX_STATES);
    return st;
}
