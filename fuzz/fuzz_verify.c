/* Fuzz target: DOT order + family -> hf_verify and hf_verify_count_uncovered, which must agree;
 * small orders also get a family from auto and from every method that applies, each of which
 * must have the predicted size and verify as hitting (the oracle of hf_generate), and auto's
 * family minimised must stay hitting. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <hitfam/count.h>
#include <hitfam/hitfam.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Generated families are verified only when small enough that a run stays well under a second
 * under the sanitizers. Orders that are neither forests nor in-forests go to greedy, whose
 * prediction runs the whole generation (0.25 s natively for 13 events at d = 4, ten times that
 * with ASan and coverage): keep those much smaller. */
#define FUZZ_GEN_MAX_EVENTS         64u
#define FUZZ_GEN_MAX_EVENTS_GENERAL 11u
/* at d = 4 greedy's local search takes about 2 s natively on 10 events (30 s and more under
 * ASan with coverage) */
#define FUZZ_GEN_MAX_EVENTS_GENERAL_D4 8u
#define FUZZ_GEN_MAX_SCHEDULES         4096u
/* auto at d = 4 weighs greedy and the exact search even on forests: 0.03 s natively on 5
 * events, 0.3 s on 6, 0.6-1 s on 7 and 1.9 s on 8 (20-40 s under ASan with coverage, which
 * stopped runs at their timeout); it and the minimisation behind it run below 6 events */
#define FUZZ_AUTO_MAX_EVENTS_D4 6u
/* auto at d = 3 runs greedy on forests of up to 32 events (lib/gen_greedy.c): 0.1-0.5 s natively
 * beyond 16 events, some seconds under ASan with coverage; auto is left out between these */
#define FUZZ_AUTO_D3_FROM 17u
#define FUZZ_AUTO_D3_TO   32u

/* A witness of a non-hitting result must itself be an admissible tuple of distinct events. */
static void check_witness(const hf_poset *p, const hf_verify_result *r)
{
    for (unsigned i = 0; i < r->d; i++) {
        if (r->witness[i] >= hf_poset_size(p))
            abort();
        for (unsigned j = i + 1; j < r->d; j++)
            if (r->witness[i] == r->witness[j] || hf_poset_less(p, r->witness[j], r->witness[i]))
                abort();
    }
}

static void verify_both(const hf_poset *p, const hf_family *f, const hf_verify_options *opt)
{
    hf_verify_result r;
    hf_error err;
    hf_status st = hf_verify(p, f, opt, &r, &err);
    mpz_t uncovered;
    mpz_init(uncovered);
    hf_status st2 = hf_verify_count_uncovered(p, f, opt, uncovered, &err);
    if (st != st2)
        abort();
    if (st == HF_OK) {
        if (r.d < 1 || r.d > opt->d)
            abort();
        if (r.hitting != (mpz_sgn(uncovered) == 0))
            abort();
        if (!r.hitting)
            check_witness(p, &r);
    }
    mpz_clear(uncovered);
}

/* hf_generate's promise, checked by hf_verify: whatever a method builds is d-hitting (for the
 * focus tuples when a focus set is given) and has exactly the predicted size. Returns the
 * family (NULL if the method does not apply or the family would be too large). */
static hf_family *generate_and_verify(const hf_poset *p, unsigned d, hf_method method,
                                      const uint32_t *focus, size_t focus_count)
{
    hf_gen_options g;
    hf_gen_options_init(&g);
    g.d = d;
    g.method = method;
    g.focus = focus;
    g.focus_count = focus_count;
    uint64_t predicted = 0;
    hf_error err;
    if (hf_method_predict(p, &g, &predicted, NULL, &err) != HF_OK ||
        predicted > FUZZ_GEN_MAX_SCHEDULES)
        return NULL;
    hf_family *f = NULL;
    if (hf_family_new(NULL, hf_poset_size(p), &f) != HF_OK)
        abort();
    hf_method used;
    hf_status st = hf_generate(p, &g, hf_family_sink(f), &used, &err);
    if (st != HF_OK)
        abort(); /* predict said the method applies */
    if (hf_family_size(f) != predicted)
        abort(); /* the prediction is documented as exact */
    hf_verify_options v = {.d = d, .focus = focus, .focus_count = focus_count};
    hf_verify_result r;
    if (hf_verify(p, f, &v, &r, &err) != HF_OK || !r.hitting)
        abort();
    return f;
}

/* auto and every method whose size is cheap to predict; on small orders also chains, and the
 * minimisation of auto's family, which must stay hitting and not grow (auto and the
 * minimisation at d = 4 below FUZZ_AUTO_MAX_EVENTS_D4 events only, at d = 3 not on 17 to 32
 * events) */
static void generate_all(const hf_poset *p, unsigned d, const uint32_t *focus, size_t focus_count,
                         bool small)
{
    static const hf_method cheap[] = {HF_METHOD_DFS, HF_METHOD_SIMPLE, HF_METHOD_DOUBLETREE,
                                      HF_METHOD_PATTERN, HF_METHOD_SCRAMBLE};
    for (size_t i = 0; i < sizeof cheap / sizeof cheap[0]; i++)
        hf_family_free(generate_and_verify(p, d, cheap[i], focus, focus_count));
    if (small)
        hf_family_free(generate_and_verify(p, d, HF_METHOD_CHAINS, focus, focus_count));
    uint32_t n = hf_poset_size(p);
    if ((d == 4 && n >= FUZZ_AUTO_MAX_EVENTS_D4) ||
        (d == 3 && n >= FUZZ_AUTO_D3_FROM && n <= FUZZ_AUTO_D3_TO))
        return;
    hf_family *f = generate_and_verify(p, d, HF_METHOD_AUTO, focus, focus_count);
    if (f && small && d <= HF_MINIMIZE_MAX_D) {
        size_t before = hf_family_size(f);
        hf_minimize_options mo;
        hf_minimize_options_init(&mo);
        mo.d = d;
        mo.focus = focus;
        mo.focus_count = focus_count;
        mo.rounds = 50;
        hf_minimize_result mr;
        hf_error err;
        if (hf_family_minimize(p, f, &mo, &mr, &err) != HF_OK)
            abort();
        hf_verify_options v = {.d = d, .focus = focus, .focus_count = focus_count};
        hf_verify_result r;
        if (hf_family_size(f) > before || mr.after != hf_family_size(f) ||
            hf_verify(p, f, &v, &r, &err) != HF_OK || !r.hitting)
            abort();
    }
    hf_family_free(f);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    unsigned d = 1u + data[0] % 4u;
    const char *rest = (const char *)data + 1;
    size_t len = size - 1;
    const char *sep = memchr(rest, 0xff, len);
    size_t dot_len = sep ? (size_t)(sep - rest) : len;
    const char *fam = sep ? sep + 1 : rest + len;
    size_t fam_len = sep ? len - dot_len - 1 : 0;

    hf_poset *p = NULL;
    hf_error err;
    if (hf_dot_read_mem(NULL, rest, dot_len, &p, &err) != HF_OK)
        return 0;
    uint32_t focus_count = 0;
    const uint32_t *focus = hf_poset_focus(p, &focus_count);

    hf_family *f = NULL;
    if (hf_family_read_mem(p, fam, fam_len, &f, NULL, &err) == HF_OK) {
        hf_verify_options opt = {.d = d};
        verify_both(p, f, &opt);
        if (focus != NULL) {
            opt.focus = focus;
            opt.focus_count = focus_count;
            verify_both(p, f, &opt);
        }
        hf_family_free(f);
    }
    /* auto runs greedy on antichains too (lib/gen.c): they get the general orders' limit */
    bool tree = (hf_poset_shape(p) & (HF_SHAPE_FOREST | HF_SHAPE_INFOREST)) != 0 &&
                !((hf_poset_shape(p) & HF_SHAPE_ANTICHAIN) && d >= 3);
    uint32_t general = d == 4 ? FUZZ_GEN_MAX_EVENTS_GENERAL_D4 : FUZZ_GEN_MAX_EVENTS_GENERAL;
    if (hf_poset_size(p) < (tree ? FUZZ_GEN_MAX_EVENTS : general)) {
        bool small = hf_poset_size(p) < general;
        generate_all(p, d, NULL, 0, small);
        if (focus != NULL)
            generate_all(p, d, focus, focus_count, small);
    }
    hf_poset_free(p);
    return 0;
}
