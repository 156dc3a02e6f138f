/* Enumeration (hitfam/enum.h) against brute force: every linear extension, one schedule per
 * trace, the preemption-bounded schedules, and their counts, on every small order the suites
 * draw with random thread, object and access labels; limits, bad options, out of memory. */
#include <criterion/criterion.h>
#include <stdio.h> /* before gmp.h, which declares its FILE functions only after it */

#include <gmp.h>
#include <stdlib.h>
#include <string.h>

#include "enum_i.h"
#include "hitfam/count.h"
#include "hitfam/enum.h"
#include "oracle.h"
#include "util.h"

TU_SUITE(enum);

/* The labels a test gave an order, for the oracle: thread (HF_NO_EVENT: none), object
 * (HF_NO_EVENT: none) and whether the event writes. */
typedef struct labels {
    uint32_t n;
    uint32_t thread[16];
    uint32_t object[16];
    bool writes[16];
    bool any_object;
} labels;

/* The order q (registered) again through ctx, with random labels (none at all when `plain`). */
static hf_poset *labelled(const hf_poset *q, uint64_t *rng, hf_ctx *ctx, bool plain, labels *lab)
{
    uint32_t n = hf_poset_size(q);
    cr_assert(n <= 16);
    size_t m;
    const uint32_t(*edges)[2] = tu_registered_edges(q, &m);
    hf_poset_builder *b = NULL;
    cr_assert_eq(hf_poset_builder_new(ctx, &b), HF_OK);
    uint32_t threads = 1 + tu_below(rng, 3), objects = 1 + tu_below(rng, 3);
    lab->n = n;
    lab->any_object = false;
    for (uint32_t v = 0; v < n; v++) {
        char name[16];
        snprintf(name, sizeof name, "e%u", v);
        cr_assert_eq(hf_poset_builder_add_event(b, name, NULL), HF_OK);
        lab->thread[v] = lab->object[v] = HF_NO_EVENT;
        lab->writes[v] = false;
        if (plain)
            continue;
        if (tu_below(rng, 4) != 0) {
            lab->thread[v] = tu_below(rng, threads);
            snprintf(name, sizeof name, "t%u", lab->thread[v]);
            cr_assert_eq(hf_poset_builder_set_thread(b, v, name), HF_OK);
        }
        if (tu_below(rng, 5) != 0) {
            lab->object[v] = tu_below(rng, objects);
            lab->writes[v] = tu_below(rng, 2);
            lab->any_object = true;
            snprintf(name, sizeof name, "o%u", lab->object[v]);
            cr_assert_eq(hf_poset_builder_set_object(
                             b, v, name, lab->writes[v] ? HF_ACCESS_WRITE : HF_ACCESS_READ),
                         HF_OK);
        }
    }
    for (size_t i = 0; i < m; i++)
        cr_assert_eq(hf_poset_builder_add_order(b, edges[i][0], edges[i][1]), HF_OK);
    hf_poset *p = NULL;
    hf_error err;
    cr_assert_eq(hf_poset_builder_finish(b, &p, &err), HF_OK, "%s", err.text);
    hf_poset_builder_free(b);
    tu_register_edges(p, edges, m);
    return p;
}

/* Conflict from the definition, on the closure of the test's edges. */
static bool oracle_conflict(const bool *lt, const labels *lab, uint32_t a, uint32_t b)
{
    uint32_t n = lab->n;
    if (a == b || lt[a * n + b] || lt[b * n + a])
        return false;
    if (!lab->any_object)
        return true;
    return lab->object[a] != HF_NO_EVENT && lab->object[a] == lab->object[b] &&
           (lab->writes[a] || lab->writes[b]);
}

/* Preemptions of schedule s counted from the definition: a switch from s[i] to s[i+1] of
 * another thread while s[i]'s thread has an unscheduled event whose predecessors (closure of
 * the test's edges) have all run. */
static uint32_t oracle_preemptions(const bool *lt, const labels *lab, const uint32_t *s)
{
    uint32_t n = lab->n, count = 0;
    bool ran[16] = {false};
    for (uint32_t i = 0; i + 1 < n; i++) {
        ran[s[i]] = true;
        uint32_t t = lab->thread[s[i]], u = lab->thread[s[i + 1]];
        if (t == HF_NO_EVENT || t != u) {
            if (t == HF_NO_EVENT)
                continue; /* a thread of its own, done */
            bool runnable = false;
            for (uint32_t v = 0; v < n && !runnable; v++) {
                if (ran[v] || lab->thread[v] != t)
                    continue;
                bool enabled = true;
                for (uint32_t w = 0; w < n && enabled; w++)
                    enabled = !lt[w * n + v] || ran[w];
                runnable = enabled;
            }
            count += runnable;
        }
    }
    return count;
}

/* Delays of schedule s counted from the definition (hitfam/enum.h, HF_ENUM_DELAYS): threads
 * numbered by first appearance by event id, an event without a thread being thread T + v after
 * them; before each step the runnable threads (with an unscheduled event whose predecessors,
 * closure of the test's edges, have all run), and the step costs the runnable threads met in
 * the cyclic order from the last event's thread (0 at first) before the thread that runs. */
static uint32_t oracle_delays(const bool *lt, const labels *lab, const uint32_t *s)
{
    uint32_t n = lab->n, T = 0, num[16], th[16];
    for (uint32_t k = 0; k < 16; k++)
        num[k] = HF_NO_EVENT;
    for (uint32_t v = 0; v < n; v++) {
        uint32_t t = lab->thread[v];
        if (t != HF_NO_EVENT && num[t] == HF_NO_EVENT)
            num[t] = T++;
    }
    for (uint32_t v = 0; v < n; v++)
        th[v] = lab->thread[v] != HF_NO_EVENT ? num[lab->thread[v]] : T + v;
    uint32_t nt = T + n, last = 0, total = 0;
    bool ran[16] = {false};
    for (uint32_t i = 0; i < n; i++) {
        bool runnable[32] = {false};
        for (uint32_t v = 0; v < n; v++) {
            bool enabled = !ran[v];
            for (uint32_t w = 0; w < n && enabled; w++)
                enabled = !lt[w * n + v] || ran[w];
            if (enabled)
                runnable[th[v]] = true;
        }
        uint32_t u = th[s[i]];
        cr_assert(runnable[u]);
        for (uint32_t t = last; t != u; t = (t + 1) % nt)
            total += runnable[t];
        ran[s[i]] = true;
        last = u;
    }
    return total;
}

static int cmp_rows_n;
static int cmp_rows(const void *a, const void *b)
{
    return memcmp(a, b, (size_t)cmp_rows_n * sizeof(uint32_t)) == 0
               ? 0
               : (memcmp(a, b, (size_t)cmp_rows_n * sizeof(uint32_t)) < 0 ? -1 : 1);
}

/* Lexicographic comparison of id rows (memcmp compares bytes, not ids). */
static int lex(const uint32_t *a, const uint32_t *b, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        if (a[i] != b[i])
            return a[i] < b[i] ? -1 : 1;
    return 0;
}

static int cmp_lex(const void *a, const void *b) { return lex(a, b, (uint32_t)cmp_rows_n); }

/* Run the enumeration through the iterator; every schedule is checked to be a permutation and
 * to respect the test's edges. */
static tu_collect run_enum(const hf_poset *p, const hf_enum_options *o, hf_enum_step *last)
{
    uint32_t n = hf_poset_size(p);
    tu_collect c = {n, 0, 0, NULL};
    hf_enum *e = NULL;
    hf_error err;
    cr_assert_eq(hf_enum_new(p, o, &e, &err), HF_OK, "%s", err.text);
    uint32_t buf[16], pos[16];
    hf_enum_step st;
    while ((st = hf_enum_next(e, buf)) == HF_ENUM_SCHEDULE) {
        bool seen[16] = {false};
        for (uint32_t i = 0; i < n; i++) {
            cr_assert_lt(buf[i], n);
            cr_assert_not(seen[buf[i]], "repeated event");
            seen[buf[i]] = true;
            pos[buf[i]] = i;
        }
        cr_assert(tu_respects_edges(p, pos), "not a linear extension");
        tu_collect_put(&c, buf, n);
        cr_assert_eq(hf_enum_given(e), c.m);
        cr_assert_lt(c.m, 100000);
    }
    cr_assert(st == HF_ENUM_DONE || st == HF_ENUM_LIMIT);
    cr_assert_eq(hf_enum_next(e, buf), st, "the end is sticky");
    cr_assert_eq(hf_i_enum_dead_ends(e), 0, "the search met a prefix that does not complete");
    if (last)
        *last = st;
    hf_enum_free(e);
    return c;
}

/* Whether the rows of got, as a set, are exactly want's rows (want has no duplicates), and got
 * has none. */
static void assert_same_set(tu_collect *got, uint32_t *want, size_t wm, uint32_t n,
                            const char *what)
{
    cr_assert_eq(got->m, wm, "%s: %zu schedules, expected %zu", what, got->m, wm);
    if (n == 0 || wm == 0)
        return;
    cmp_rows_n = (int)n;
    qsort(got->rows, got->m, n * sizeof(uint32_t), cmp_lex);
    qsort(want, wm, n * sizeof(uint32_t), cmp_lex);
    for (size_t i = 0; i < wm; i++) {
        if (i > 0)
            cr_assert_neq(lex(got->rows + (i - 1) * n, got->rows + i * n, n), 0,
                          "%s: a schedule given twice", what);
        cr_assert_eq(lex(got->rows + i * n, want + i * n, n), 0, "%s: schedule %zu differs", what,
                     i);
    }
    (void)cmp_rows;
}

static void assert_count(const hf_poset *p, const hf_enum_options *o, size_t want, const char *what)
{
    mpz_t c;
    mpz_init(c);
    hf_error err;
    hf_enum_options oo = *o;
    /* default work: finishes by enumeration on these sizes */
    cr_assert_eq(hf_enum_count(p, &oo, c, &err), HF_OK, "%s: %s", what, err.text);
    cr_assert_eq(mpz_cmp_ui(c, want), 0, "%s: count", what);
    /* the dynamic program alone, without a bound */
    oo.max_work = 0;
    if (oo.mode != HF_ENUM_ALL) {
        cr_assert_eq(hf_i_enum_count_dp(p, &oo, c), HF_OK, "%s", what);
        cr_assert_eq(mpz_cmp_ui(c, want), 0, "%s: count by dynamic programming is %s, expected %zu",
                     what, mpz_get_str(NULL, 10, c), want);
    }
    /* no bound: the enumeration to its end */
    oo.max_work = 0;
    cr_assert_eq(hf_enum_count(p, &oo, c, &err), HF_OK, "%s: %s", what, err.text);
    cr_assert_eq(mpz_cmp_ui(c, want), 0, "%s: count by enumeration", what);
    mpz_clear(c);
}

/* The bounded enumeration `mode` (preemptions or delays) for K = 0..kmax against brute force:
 * the linear extensions `all` whose cost, counted by the oracle, is at most K (want: room for
 * all of them). Delays stop once every extension is within the bound. */
static void check_bounds(const hf_poset *p, const bool *lt, const labels *lab,
                         const tu_collect *all, uint32_t *want, hf_enum_mode mode, uint32_t kmax)
{
    uint32_t n = hf_poset_size(p);
    hf_enum_options o;
    hf_enum_options_init(&o);
    o.mode = mode;
    bool delays = mode == HF_ENUM_DELAYS;
    for (uint32_t K = 0; K <= kmax; K++) {
        size_t wm = 0;
        for (size_t i = 0; i < all->m; i++) {
            const uint32_t *s = all->rows + i * n;
            if ((delays ? oracle_delays(lt, lab, s) : oracle_preemptions(lt, lab, s)) <= K)
                memcpy(want + wm++ * n, s, n * sizeof *want);
        }
        o.preemptions = o.delays = K;
        char what[64];
        snprintf(what, sizeof what, "%s-%u", delays ? "delays" : "preemptions", K);
        tu_collect got = run_enum(p, &o, NULL);
        assert_same_set(&got, want, wm, n, what);
        free(got.rows);
        assert_count(p, &o, wm, what);
        if (delays && wm == all->m)
            break;
    }
}

/* Every enumerator on one labelled order against brute force. */
static void check_order(const hf_poset *p, const labels *lab)
{
    uint32_t n = hf_poset_size(p);
    bool *lt = tu_closure(p);
    tu_collect all = tu_all_extensions(p);
    hf_enum_options o;
    hf_enum_options_init(&o);

    /* every linear extension */
    tu_collect got = run_enum(p, &o, NULL);
    uint32_t *want = malloc((all.m ? all.m : 1) * (n ? n : 1) * sizeof *want);
    memcpy(want, all.rows, all.m * n * sizeof *want);
    assert_same_set(&got, want, all.m, n, "all");
    free(got.rows);
    assert_count(p, &o, all.m, "all");

    /* traces: classes by the orientation of conflicting pairs; the least member of each (the
     * first met, since the oracle lists extensions in lexicographic order) */
    o.mode = HF_ENUM_TRACES;
    size_t classes = 0;
    uint32_t pos[16], pos2[16];
    for (size_t i = 0; i < all.m; i++) {
        const uint32_t *s = all.rows + i * n;
        for (uint32_t k = 0; k < n; k++)
            pos[s[k]] = k;
        bool fresh = true;
        for (size_t j = 0; j < i && fresh; j++) {
            const uint32_t *r = all.rows + j * n;
            for (uint32_t k = 0; k < n; k++)
                pos2[r[k]] = k;
            bool same = true;
            for (uint32_t a = 0; a < n && same; a++)
                for (uint32_t b = a + 1; b < n && same; b++)
                    if (oracle_conflict(lt, lab, a, b))
                        same = (pos[a] < pos[b]) == (pos2[a] < pos2[b]);
            fresh = !same;
        }
        if (fresh)
            memcpy(want + classes++ * n, s, n * sizeof *want);
    }
    got = run_enum(p, &o, NULL);
    assert_same_set(&got, want, classes, n, "traces");
    free(got.rows);
    assert_count(p, &o, classes, "traces");

    /* preemption bounds up to 3; delay bounds up to where every schedule is within (or 6) */
    check_bounds(p, lt, lab, &all, want, HF_ENUM_PREEMPTIONS, n > 3 ? 3 : n);
    check_bounds(p, lt, lab, &all, want, HF_ENUM_DELAYS, 6);
    free(want);
    free(all.rows);
    free(lt);
}

Test(enum, every_small_order_with_random_labels)
{
    uint64_t rng = 2026;
    size_t orders = 0;
    for (uint32_t n = 1; n <= 7; n++) /* (n = 0: empty_order_has_one_empty_schedule) */
        for (unsigned i = 0; i < 9; i++)
            for (int rep = 0; rep < (n <= 5 ? 6 : 3); rep++) {
                hf_poset *q = tu_some_order(i, n, &rng);
                for (int plain = 0; plain < 2; plain++) {
                    labels lab;
                    hf_poset *p = labelled(q, &rng, NULL, plain, &lab);
                    check_order(p, &lab);
                    hf_poset_free(p);
                    orders++;
                }
                hf_poset_free(q);
            }
    cr_assert_gt(orders, 500);
}

/* Random orders of 8 events with many labels (up to 40,320 extensions). */
Test(enum, random_orders_of_eight)
{
    uint64_t rng = 77;
    for (int it = 0; it < 30; it++) {
        hf_poset *q = tu_random_dag(8, 1 + tu_below(&rng, 2), 5, &rng);
        labels lab;
        hf_poset *p = labelled(q, &rng, NULL, false, &lab);
        check_order(p, &lab);
        hf_poset_free(p);
        hf_poset_free(q);
    }
}

/* Delay bounds by hand: two threads of two events (A first in the round-robin order), and
 * three events with no thread (each a thread of its own, in id order). The counts for K = 0..3
 * delays, and with 0 the scheduler's own schedule alone. */
Test(enum, hand_built_delays)
{
    /* a1 a2 b1 b2: 0; a1 b1 b2 a2 and b1 b2 a1 a2: 1 (B ran while A could); a1 b1 a2 b2 and
     * b1 a1 a2 b2: 2; b1 a1 b2 a2: 3 */
    const char *dots[] = {"digraph { a1 [thread=A]; a2 [thread=A]; b1 [thread=B];"
                          " b2 [thread=B]; a1 -> a2; b1 -> b2 }",
                          "digraph { x; y; z }"};
    /* x y z: 0; x z y: 1; y z x: 1 (skips x, then z is the next after y); y x z: 2;
     * z x y: 2; z y x: 3 */
    static const unsigned long want[2][4] = {{1, 3, 5, 6}, {1, 3, 5, 6}};
    static const uint32_t first[2][4] = {{0, 1, 2, 3}, {0, 1, 2, 0}};
    for (int k = 0; k < 2; k++) {
        hf_poset *p = NULL;
        hf_error err;
        cr_assert_eq(hf_dot_read_mem(NULL, dots[k], strlen(dots[k]), &p, &err), HF_OK, "%s",
                     err.text);
        hf_enum_options o;
        hf_enum_options_init(&o);
        o.mode = HF_ENUM_DELAYS;
        mpz_t c;
        mpz_init(c);
        for (uint32_t K = 0; K < 4; K++) {
            o.delays = K;
            cr_assert_eq(hf_enum_count(p, &o, c, &err), HF_OK, "%s", err.text);
            cr_assert_eq(mpz_cmp_ui(c, want[k][K]), 0, "case %d, K=%u: %s", k, K,
                         mpz_get_str(NULL, 10, c));
        }
        o.delays = 0;
        hf_enum *e = NULL;
        uint32_t buf[4];
        cr_assert_eq(hf_enum_new(p, &o, &e, &err), HF_OK);
        cr_assert_eq(hf_enum_next(e, buf), HF_ENUM_SCHEDULE);
        cr_assert_eq(memcmp(buf, first[k], hf_poset_size(p) * sizeof *buf), 0);
        cr_assert_eq(hf_enum_next(e, buf), HF_ENUM_DONE);
        hf_enum_free(e);
        char name[32];
        o.delays = 2;
        cr_assert_str_eq(hf_enum_method_name(&o, name, sizeof name), "delays-2");
        mpz_clear(c);
        hf_poset_free(p);
    }
}

/* Hand-built cases: two threads of two writes to one object, and read-only accesses. */
Test(enum, hand_built_traces_and_preemptions)
{
    /* a1 -> a2 (thread A), b1 -> b2 (thread B), all write x: traces = linear extensions (6);
     * preemptions: 0 -> the 2 serial runs, 1 -> plus a1 b1 b2 a2 and b1 a1 a2 b2. */
    const char *dot = "digraph { a1 [thread=A, obj=x]; a2 [thread=A, obj=x];"
                      " b1 [thread=B, obj=x]; b2 [thread=B, obj=x]; a1 -> a2; b1 -> b2 }";
    hf_poset *p = NULL;
    hf_error err;
    cr_assert_eq(hf_dot_read_mem(NULL, dot, strlen(dot), &p, &err), HF_OK, "%s", err.text);
    hf_enum_options o;
    hf_enum_options_init(&o);
    mpz_t c;
    mpz_init(c);
    static const unsigned long want_all = 6, want_pre[] = {2, 4, 6, 6};
    cr_assert_eq(hf_enum_count(p, &o, c, &err), HF_OK);
    cr_assert_eq(mpz_cmp_ui(c, want_all), 0);
    o.mode = HF_ENUM_TRACES;
    cr_assert_eq(hf_enum_count(p, &o, c, &err), HF_OK);
    cr_assert_eq(mpz_cmp_ui(c, want_all), 0);
    o.mode = HF_ENUM_PREEMPTIONS;
    for (uint32_t K = 0; K < 4; K++) {
        o.preemptions = K;
        cr_assert_eq(hf_enum_count(p, &o, c, &err), HF_OK);
        cr_assert_eq(mpz_cmp_ui(c, want_pre[K]), 0, "K=%u", K);
    }
    hf_poset_free(p);

    /* all reads: one trace; its member is the least extension a1 a2 b1 b2 (ids 0 1 2 3) */
    dot = "digraph { a1 [obj=x, access=r]; a2 [obj=x, access=r]; b1 [obj=x, access=r];"
          " b2 [obj=x, access=r]; a1 -> a2; b1 -> b2 }";
    cr_assert_eq(hf_dot_read_mem(NULL, dot, strlen(dot), &p, &err), HF_OK, "%s", err.text);
    static const uint32_t edges[][2] = {{0, 1}, {2, 3}};
    tu_register_edges(p, edges, 2);
    o.mode = HF_ENUM_TRACES;
    hf_enum_step last;
    tu_collect got = run_enum(p, &o, &last);
    cr_assert_eq(got.m, 1);
    cr_assert_eq(last, HF_ENUM_DONE);
    static const uint32_t least[] = {0, 1, 2, 3};
    cr_assert_eq(memcmp(got.rows, least, sizeof least), 0);
    free(got.rows);
    hf_poset_free(p);

    /* w(x) r(x) r(x) unordered: the reads commute, the write is ordered against each read on
     * its own: 4 traces (write first, last, or between the reads either way) */
    dot = "digraph { w [obj=x]; r1 [obj=x, access=r]; r2 [obj=x, access=r] }";
    cr_assert_eq(hf_dot_read_mem(NULL, dot, strlen(dot), &p, &err), HF_OK, "%s", err.text);
    tu_register_edges(p, NULL, 0);
    got = run_enum(p, &o, &last);
    cr_assert_eq(got.m, 4);
    static const uint32_t reps[] = {0, 1, 2, 1, 0, 2, 1, 2, 0, 2, 0, 1};
    cr_assert_eq(memcmp(got.rows, reps, sizeof reps), 0);
    free(got.rows);
    hf_poset_free(p);
    mpz_clear(c);
}

static hf_status count_put(void *user, const uint32_t *s, uint32_t n)
{
    (void)user;
    (void)s;
    (void)n;
    return HF_OK;
}

/* Programs of the POS micro-benchmark shape (3 threads of 4 events, 3 objects, random reads and
 * writes, a message): the dynamic programs agree with the enumeration run to its end, and the
 * enumeration gives as many schedules as it counts. */
Test(enum, dynamic_programs_agree_with_enumeration)
{
    uint64_t rng = 41;
    for (int it = 0; it < 12; it++) {
        hf_poset_builder *b = NULL;
        cr_assert_eq(hf_poset_builder_new(NULL, &b), HF_OK);
        for (uint32_t v = 0; v < 12; v++) {
            char name[8], th[8], obj[8];
            snprintf(name, sizeof name, "e%u", v);
            snprintf(th, sizeof th, "t%u", v / 4);
            snprintf(obj, sizeof obj, "x%u", tu_below(&rng, 3));
            cr_assert_eq(hf_poset_builder_add_event(b, name, NULL), HF_OK);
            cr_assert_eq(hf_poset_builder_set_thread(b, v, th), HF_OK);
            cr_assert_eq(hf_poset_builder_set_object(
                             b, v, obj, tu_below(&rng, 2) ? HF_ACCESS_WRITE : HF_ACCESS_READ),
                         HF_OK);
            if (v % 4)
                cr_assert_eq(hf_poset_builder_add_order(b, v - 1, v), HF_OK);
        }
        uint32_t from = tu_below(&rng, 8), to = (from / 4 + 1) * 4 + tu_below(&rng, 4);
        cr_assert_eq(hf_poset_builder_add_order(b, from, to), HF_OK);
        hf_poset *p = NULL;
        hf_error err;
        cr_assert_eq(hf_poset_builder_finish(b, &p, &err), HF_OK, "%s", err.text);
        hf_poset_builder_free(b);
        for (int mode = 1; mode < 4; mode++)
            for (uint32_t K = 0; K < (mode == 1 ? 1u : 4u); K++) {
                hf_enum_options o;
                hf_enum_options_init(&o);
                o.mode = (hf_enum_mode)mode;
                o.preemptions = K;
                o.delays = K;
                mpz_t dp, en;
                mpz_inits(dp, en, NULL);
                o.max_work = 0;
                cr_assert_eq(hf_i_enum_count_dp(p, &o, dp), HF_OK);
                cr_assert_eq(hf_enum_count(p, &o, en, &err), HF_OK, "%s", err.text);
                cr_assert(mpz_cmp(dp, en) == 0, "mode %d K %u: %s by dynamic programming, %s", mode,
                          K, mpz_get_str(NULL, 10, dp), mpz_get_str(NULL, 10, en));
                uint64_t given = 0;
                cr_assert_eq(hf_enum_run(p, &o, (hf_sink){count_put, NULL}, &given, NULL, NULL),
                             HF_OK);
                cr_assert_eq(mpz_cmp_ui(en, (unsigned long)given), 0);
                mpz_clears(dp, en, NULL);
            }
        hf_poset_free(p);
    }
}

/* A limit stops after that many schedules, the first ones of the full run, and says whether
 * more would follow. */
Test(enum, limit)
{
    uint64_t rng = 5;
    for (int it = 0; it < 40; it++) {
        hf_poset *q = tu_some_order((unsigned)it, 6, &rng);
        labels lab;
        hf_poset *p = labelled(q, &rng, NULL, false, &lab);
        for (int mode = 0; mode < 4; mode++) {
            hf_enum_options o;
            hf_enum_options_init(&o);
            o.mode = (hf_enum_mode)mode;
            o.preemptions = 1;
            o.delays = 1;
            tu_collect full = run_enum(p, &o, NULL);
            for (uint64_t L = 1; L <= full.m + 1; L += 1 + full.m / 5) {
                o.limit = L;
                hf_enum_step last;
                tu_collect part = run_enum(p, &o, &last);
                size_t expect = L < full.m ? L : full.m;
                cr_assert_eq(part.m, expect);
                cr_assert_eq(last, L < full.m ? HF_ENUM_LIMIT : HF_ENUM_DONE);
                cr_assert_eq(memcmp(part.rows, full.rows, expect * 6 * sizeof(uint32_t)), 0);
                uint64_t given = 0;
                bool more = false;
                tu_collect sunk = {6, 0, 0, NULL};
                cr_assert_eq(hf_enum_run(p, &o, tu_collect_sink(&sunk), &given, &more, NULL),
                             HF_OK);
                cr_assert_eq(given, expect);
                cr_assert_eq(more, L < full.m);
                cr_assert_eq(memcmp(sunk.rows, full.rows, expect * 6 * sizeof(uint32_t)), 0);
                free(part.rows);
                free(sunk.rows);
            }
            free(full.rows);
        }
        hf_poset_free(p);
        hf_poset_free(q);
    }
}

/* Varol-Rotem's amortised cost: at most 2n + 1 steps (tried moves and positions shifted back)
 * per schedule, on every shape of 10 events; on an antichain a constant. */
Test(enum, linear_extensions_in_amortised_linear_time)
{
    uint64_t rng = 3;
    for (unsigned i = 0; i < 27; i++) {
        hf_poset *p = tu_some_order(i, 10, &rng);
        hf_enum *e = NULL;
        cr_assert_eq(hf_enum_new(p, NULL, &e, NULL), HF_OK);
        uint32_t buf[10];
        while (hf_enum_next(e, buf) == HF_ENUM_SCHEDULE)
            ;
        uint64_t given = hf_enum_given(e), work = hf_i_enum_work(e);
        cr_assert_leq(work, (2 * 10 + 1) * (given + 1), "order %u: %llu steps for %llu schedules",
                      i, (unsigned long long)work, (unsigned long long)given);
        if (i % 9 == 4) /* antichain: 10! schedules; event n moves n - 1 times and shifts
                         * back n - 1 places: about 2 steps per schedule */
            cr_assert_leq(work, 3 * given, "%llu steps", (unsigned long long)work);
        hf_enum_free(e);
        hf_poset_free(p);
    }
}

Test(enum, empty_order_has_one_empty_schedule)
{
    hf_poset *p = tu_antichain(0);
    for (int mode = 0; mode < 4; mode++) {
        hf_enum_options o;
        hf_enum_options_init(&o);
        o.mode = (hf_enum_mode)mode;
        hf_enum *e = NULL;
        cr_assert_eq(hf_enum_new(p, &o, &e, NULL), HF_OK);
        cr_assert_eq(hf_enum_next(e, NULL), HF_ENUM_SCHEDULE);
        cr_assert_eq(hf_enum_next(e, NULL), HF_ENUM_DONE);
        hf_enum_free(e);
        mpz_t c;
        mpz_init(c);
        cr_assert_eq(hf_enum_count(p, &o, c, NULL), HF_OK);
        cr_assert_eq(mpz_cmp_ui(c, 1), 0);
        mpz_clear(c);
    }
    hf_poset_free(p);
}

Test(enum, bad_arguments)
{
    hf_poset *p = tu_chain(3);
    hf_enum_options o;
    hf_enum_options_init(&o);
    cr_assert_eq(o.mode, HF_ENUM_ALL);
    cr_assert_eq(o.max_work, HF_ENUM_DEFAULT_WORK);
    hf_enum *e = (hf_enum *)&o;
    hf_error err;
    cr_assert_eq(hf_enum_new(NULL, &o, &e, &err), HF_EINVAL);
    cr_assert_null(e);
    cr_assert_eq(hf_enum_new(p, &o, NULL, &err), HF_EINVAL);
    o.mode = (hf_enum_mode)7;
    cr_assert_eq(hf_enum_new(p, &o, &e, &err), HF_EINVAL);
    cr_assert(strstr(err.text, "unknown enumeration mode 7"), "%s", err.text);
    mpz_t c;
    mpz_init(c);
    cr_assert_eq(hf_enum_count(p, &o, c, &err), HF_EINVAL);
    cr_assert_eq(hf_enum_count(NULL, NULL, c, &err), HF_EINVAL);
    char buf[32];
    cr_assert_null(hf_enum_method_name(&o, buf, sizeof buf));
    o.mode = HF_ENUM_PREEMPTIONS;
    o.preemptions = 12;
    cr_assert_str_eq(hf_enum_method_name(&o, buf, sizeof buf), "preemptions-12");
    cr_assert_null(hf_enum_method_name(&o, buf, 8));
    o.mode = HF_ENUM_TRACES;
    cr_assert_str_eq(hf_enum_method_name(&o, buf, sizeof buf), "traces");
    o.mode = HF_ENUM_ALL;
    cr_assert_str_eq(hf_enum_method_name(&o, buf, sizeof buf), "enum");
    cr_assert_eq(hf_enum_next(NULL, NULL), HF_ENUM_INVALID);
    cr_assert_eq(hf_enum_new(p, NULL, &e, &err), HF_OK);
    cr_assert_eq(hf_enum_next(e, NULL), HF_ENUM_INVALID);
    cr_assert_eq(hf_enum_given(e), 0);
    cr_assert_eq(hf_enum_given(NULL), 0);
    hf_enum_free(e);
    hf_enum_free(NULL);
    cr_assert_eq(hf_enum_run(p, NULL, (hf_sink){NULL, NULL}, NULL, NULL, &err), HF_EINVAL);
    hf_enum_options_init(NULL);
    mpz_clear(c);
    hf_poset_free(p);
}

static hf_status stop_at_two(void *user, const uint32_t *s, uint32_t n)
{
    (void)s;
    (void)n;
    return ++*(int *)user == 2 ? HF_EABORTED : HF_OK;
}

Test(enum, sink_stops_the_run)
{
    hf_poset *p = tu_antichain(4);
    int calls = 0;
    uint64_t given = 9;
    hf_error err;
    cr_assert_eq(hf_enum_run(p, NULL, (hf_sink){stop_at_two, &calls}, &given, NULL, &err),
                 HF_EABORTED);
    cr_assert_eq(calls, 2);
    cr_assert_eq(given, 1);
    hf_poset_free(p);
}

/* Large counts: exact big numbers from the linear-extension counter, and the bounds' refusal. */
Test(enum, counts_beyond_64_bits_and_refusals)
{
    hf_poset *p = tu_antichain(30);
    hf_enum_options o;
    hf_enum_options_init(&o);
    mpz_t c, f;
    mpz_inits(c, f, NULL);
    hf_error err;
    cr_assert_eq(hf_enum_count(p, &o, c, &err), HF_OK, "%s", err.text);
    mpz_fac_ui(f, 30);
    cr_assert(mpz_cmp(c, f) == 0);
    /* traces and preemptions on an unlabelled order are the linear extensions */
    o.mode = HF_ENUM_TRACES;
    cr_assert_eq(hf_enum_count(p, &o, c, &err), HF_OK, "%s", err.text);
    cr_assert(mpz_cmp(c, f) == 0);
    o.mode = HF_ENUM_PREEMPTIONS;
    cr_assert_eq(hf_enum_count(p, &o, c, &err), HF_OK, "%s", err.text);
    cr_assert(mpz_cmp(c, f) == 0);
    hf_poset_free(p);

    /* 24 unordered events of 3 threads all writing one object: 24!/(8!)^3 traces, more
     * down-set states than allowed after a small work bound */
    hf_poset_builder *b = NULL;
    cr_assert_eq(hf_poset_builder_new(NULL, &b), HF_OK);
    for (uint32_t v = 0; v < 24; v++) {
        char name[8], th[8];
        snprintf(name, sizeof name, "e%u", v);
        snprintf(th, sizeof th, "t%u", v % 3);
        cr_assert_eq(hf_poset_builder_add_event(b, name, NULL), HF_OK);
        cr_assert_eq(hf_poset_builder_set_thread(b, v, th), HF_OK);
        cr_assert_eq(hf_poset_builder_set_object(b, v, "x", HF_ACCESS_WRITE), HF_OK);
        if (v >= 3)
            cr_assert_eq(hf_poset_builder_add_order(b, v - 3, v), HF_OK);
    }
    cr_assert_eq(hf_poset_builder_finish(b, &p, &err), HF_OK);
    hf_poset_builder_free(b);
    /* three chains of 8 events: (24)! / (8!)^3 linear extensions = traces (all conflict) */
    o.mode = HF_ENUM_TRACES;
    o.max_work = 0;
    cr_assert_eq(hf_i_enum_count_dp(p, &o, c), HF_OK);
    mpz_fac_ui(f, 24);
    mpz_t g;
    mpz_init(g);
    mpz_fac_ui(g, 8);
    mpz_pow_ui(g, g, 3);
    mpz_divexact(f, f, g);
    cr_assert(mpz_cmp(c, f) == 0, "traces %s", mpz_get_str(NULL, 10, c));
    /* preemptions with K = 2 by the dynamic program, against the enumeration */
    /* preemptions with K = 2 by the public count, against the dynamic program alone */
    o.mode = HF_ENUM_PREEMPTIONS;
    o.preemptions = 2;
    o.max_work = HF_ENUM_DEFAULT_WORK;
    cr_assert_eq(hf_enum_count(p, &o, c, &err), HF_OK, "%s", err.text);
    o.max_work = 0;
    cr_assert_eq(hf_i_enum_count_dp(p, &o, g), HF_OK);
    cr_assert(mpz_cmp(c, g) == 0);
    cr_assert_lt(mpz_cmp(c, f), 0); /* fewer than all linear extensions */
    cr_assert_gt(mpz_cmp_ui(c, 1000), 0);
    mpz_clear(g);
    hf_poset_free(p);

    /* 40 unordered events touching pairwise different objects: 1 trace, found by enumeration
     * (the dynamic program would need 2^40 down-sets); with no work allowed, refused */
    cr_assert_eq(hf_poset_builder_new(NULL, &b), HF_OK);
    for (uint32_t v = 0; v < 40; v++) {
        char name[8];
        snprintf(name, sizeof name, "e%u", v);
        cr_assert_eq(hf_poset_builder_add_event(b, name, NULL), HF_OK);
        cr_assert_eq(hf_poset_builder_set_object(b, v, name, HF_ACCESS_WRITE), HF_OK);
    }
    cr_assert_eq(hf_poset_builder_finish(b, &p, &err), HF_OK);
    hf_poset_builder_free(b);
    o.mode = HF_ENUM_TRACES;
    o.max_work = HF_ENUM_DEFAULT_WORK;
    cr_assert_eq(hf_enum_count(p, &o, c, &err), HF_OK, "%s", err.text);
    cr_assert_eq(mpz_cmp_ui(c, 1), 0);
    o.max_work = 10;
    cr_assert_eq(hf_enum_count(p, &o, c, &err), HF_ETOOLARGE);
    cr_assert(strstr(err.text, "counting the traces takes more than 10 steps"), "%s", err.text);
    hf_poset_free(p);
    mpz_clears(c, f, NULL);
}

/* Every allocation failing in turn: a clean HF_ENOMEM and nothing leaked, then the same
 * result. */
Test(enum, out_of_memory)
{
    tu_chaos chaos = {-1, false, 0, 0};
    hf_ctx *ctx = tu_chaos_ctx(&chaos);
    uint64_t rng = 9;
    for (int it = 0; it < 6; it++) {
        hf_poset *q = tu_some_order((unsigned)it, 6, &rng);
        labels lab;
        hf_poset *p = labelled(q, &rng, ctx, false, &lab);
        for (int mode = 0; mode < 4; mode++)
            for (int counting = 0; counting < 2; counting++) {
                hf_enum_options o;
                hf_enum_options_init(&o);
                o.mode = (hf_enum_mode)mode;
                o.preemptions = 1;
                o.delays = 1;
                o.max_work = 0;
                bool dp = it % 2 && mode > 0; /* the dynamic programs alone */
                hf_status st = HF_ENOMEM;
                for (long k = 0; st == HF_ENOMEM; k++) {
                    cr_assert_lt(k, 100000);
                    long live = chaos.live;
                    chaos.left = k;
                    chaos.once = false;
                    hf_error err;
                    if (counting) {
                        mpz_t c;
                        mpz_init(c);
                        st = dp ? hf_i_enum_count_dp(p, &o, c) : hf_enum_count(p, &o, c, &err);
                        if (dp && st == HF_ENOMEM)
                            snprintf(err.text, sizeof err.text, "out of memory");
                        mpz_clear(c);
                    } else {
                        hf_enum *e = NULL;
                        st = hf_enum_new(p, &o, &e, &err);
                        cr_assert_eq(st != HF_OK, e == NULL);
                        hf_enum_free(e);
                    }
                    chaos.left = -1;
                    if (st == HF_ENOMEM)
                        cr_assert(strstr(err.text, "out of memory"), "%s", err.text);
                    cr_assert_eq(chaos.live, live, "leak after failing allocation %ld", k);
                }
                cr_assert_eq(st, HF_OK);
            }
        hf_poset_free(p);
        hf_poset_free(q);
    }
    hf_ctx_free(ctx);
}

/* ---------------------------------------------------------------------------------------- */
/* Progress and cancellation                                                                 */

typedef struct stopper {
    unsigned calls, stop_at; /* stop (return false) at this call; 0: never */
    char task[16];
    uint64_t last_done;
} stopper;

static bool stop_when_told(const hf_progress *pr, void *user)
{
    stopper *s = user;
    snprintf(s->task, sizeof s->task, "%s", pr->task);
    s->last_done = pr->done;
    return ++s->calls != s->stop_at;
}

static hf_status tally_put(void *user, const uint32_t *s, uint32_t n)
{
    (void)s;
    (void)n;
    ++*(uint64_t *)user;
    return HF_OK;
}

/* `threads` chains of `per` events (per >= 2), every event writing one object (so no two
 * events commute and the traces are the linear extensions), and two messages that make the
 * order neither a forest nor an in-forest: thread 0's first event before thread 1's second, and
 * thread 1's first before thread 2's second. Through ctx. */
static hf_poset *threads_on_one_object(hf_ctx *ctx, uint32_t threads, uint32_t per)
{
    hf_poset_builder *b = NULL;
    cr_assert_eq(hf_poset_builder_new(ctx, &b), HF_OK);
    for (uint32_t v = 0; v < threads * per; v++) {
        char name[16], thread[16];
        snprintf(name, sizeof name, "e%u", v);
        snprintf(thread, sizeof thread, "t%u", v / per);
        cr_assert_eq(hf_poset_builder_add_event(b, name, NULL), HF_OK);
        cr_assert_eq(hf_poset_builder_set_thread(b, v, thread), HF_OK);
        cr_assert_eq(hf_poset_builder_set_object(b, v, "x", HF_ACCESS_WRITE), HF_OK);
        if (v % per)
            cr_assert_eq(hf_poset_builder_add_order(b, v - 1, v), HF_OK);
    }
    cr_assert_eq(hf_poset_builder_add_order(b, 0, per + 1), HF_OK);
    cr_assert_eq(hf_poset_builder_add_order(b, per, 2 * per + 1), HF_OK);
    hf_poset *p = NULL;
    hf_error err;
    cr_assert_eq(hf_poset_builder_finish(b, &p, &err), HF_OK, "%s", err.text);
    hf_poset_builder_free(b);
    return p;
}

/* A long enumeration and the exact counts report their progress and stop with HF_EABORTED when
 * the callback says so, leaving nothing allocated; stopped at every report in turn, the counts
 * either stop or give the number an unstopped run gives. */
Test(enum, progress_stops_runs_and_counts)
{
    tu_chaos chaos = {-1, false, 0, 0}; /* fails nothing: counts the live allocations */
    hf_ctx *ctx = tu_chaos_ctx(&chaos);
    stopper s = {0};
    cr_assert_eq(hf_ctx_set_progress(ctx, stop_when_told, &s), HF_OK);
    long base = chaos.live;

    /* 14! schedules: only the callback ends this run */
    hf_poset *q = tu_antichain(14);
    hf_poset *p = tu_poset_copy(q, ctx);
    uint64_t put = 0, given = 0;
    bool more = true;
    hf_error err;
    s = (stopper){.stop_at = 3};
    cr_assert_eq(hf_enum_run(p, NULL, (hf_sink){tally_put, &put}, &given, &more, &err),
                 HF_EABORTED);
    cr_assert_eq(s.calls, 3);
    cr_assert_str_eq(s.task, "enum");
    cr_assert(strstr(err.text, "enum: stopped by the progress callback"), "%s", err.text);
    cr_assert_eq(given, put);
    cr_assert_eq(s.last_done, given);
    cr_assert_gt(given, 0);
    cr_assert(!more);
    hf_poset_free(p);
    hf_poset_free(q);
    cr_assert_eq(chaos.live, base, "the stopped run leaked");

    /* traces, preemption and delay bounds: the enumeration phase, then the dynamic programs, of 5
     * threads of 6 events */
    p = threads_on_one_object(ctx, 5, 6);
    base = chaos.live;
    mpz_t traces;
    mpz_init(traces);
    for (int mode = HF_ENUM_TRACES; mode <= HF_ENUM_DELAYS; mode++) {
        hf_enum_options o;
        hf_enum_options_init(&o);
        o.mode = (hf_enum_mode)mode;
        o.preemptions = 2;
        o.delays = 5; /* 2 give too few schedules to count for long */
        o.max_work = (uint64_t)1 << 23;
        mpz_t want, got;
        mpz_inits(want, got, NULL);
        s = (stopper){0};
        cr_assert_eq(hf_enum_count(p, &o, want, &err), HF_OK, "%s", err.text);
        unsigned reports = s.calls;
        cr_assert_gt(reports, 8, "mode %d: %u reports", mode, reports);
        cr_assert_str_eq(s.task, "count");
        for (unsigned stop = 1; stop <= reports + 1; stop++) {
            s = (stopper){.stop_at = stop};
            hf_status st = hf_enum_count(p, &o, got, &err);
            cr_assert_eq(chaos.live, base, "mode %d stopped at report %u: leak", mode, stop);
            if (stop <= reports) {
                cr_assert_eq(st, HF_EABORTED, "mode %d, stop %u: %s", mode, stop, err.text);
                cr_assert(strstr(err.text, "count: stopped"), "%s", err.text);
            } else {
                cr_assert_eq(st, HF_OK, "%s", err.text);
                cr_assert(mpz_cmp(want, got) == 0);
            }
        }
        if (mode == HF_ENUM_TRACES)
            mpz_set(traces, want);
        /* the dynamic program alone */
        s = (stopper){.stop_at = 1};
        cr_assert_eq(hf_i_enum_count_dp(p, &o, got), HF_EABORTED);
        cr_assert_eq(chaos.live, base);
        mpz_clears(want, got, NULL);
    }
    /* the linear extensions of the same order (down-sets): the traces, as no two events
     * commute */
    mpz_t c;
    mpz_init(c);
    s = (stopper){.stop_at = 1};
    cr_assert_eq(hf_count_linear_extensions(p, c, &err), HF_EABORTED);
    cr_assert_str_eq(s.task, "count");
    cr_assert(strstr(err.text, "count: stopped"), "%s", err.text);
    cr_assert_eq(chaos.live, base);
    s = (stopper){0};
    cr_assert_eq(hf_count_linear_extensions(p, c, &err), HF_OK, "%s", err.text);
    cr_assert_gt(s.calls, 0);
    cr_assert(mpz_cmp(c, traces) == 0);
    mpz_clears(c, traces, NULL);
    hf_poset_free(p);
    hf_ctx_free(ctx);
}
