/* A build without the SAT solver (the library compiled without CaDiCaL, tests/meson.build):
 * method exact stays a method name but refuses with a message naming libcadical-dev, the entry
 * points of hitfam/exact.h refuse the same way, and auto works as without method exact. */
#include <criterion/criterion.h>
#include <string.h>

#include "hitfam/exact.h"
#include "hitfam/hitfam.h"

/* examples/page.dot, the README's order: a tree of 12 events */
static hf_poset *page(void)
{
    static const char dot[] =
        "digraph page { parse_head -> parse_img -> parse_script1 -> parse_div -> parse_script2 "
        "-> dom_ready; parse_img -> img_fetched -> img_onload; parse_script1 -> timer_fired; "
        "parse_script1 -> xhr_sent -> xhr_done; parse_div -> user_click; }";
    hf_poset *p = NULL;
    hf_error err;
    cr_assert_eq(hf_dot_read_mem(NULL, dot, sizeof dot - 1, &p, &err), HF_OK, "%s", err.text);
    return p;
}

Test(exact_nosat, refused_with_the_library_named)
{
    cr_assert(!hf_exact_available());
    hf_poset *p = page();
    hf_method m;
    cr_assert_eq(hf_method_from_name("exact", &m), HF_OK);
    cr_assert_eq(m, HF_METHOD_EXACT);
    cr_assert_str_eq(hf_method_name(HF_METHOD_EXACT), "exact");
    hf_gen_options opt;
    hf_gen_options_init(&opt);
    opt.d = 3;
    opt.method = HF_METHOD_EXACT;
    hf_error err;
    cr_assert_eq(hf_method_check(p, &opt, &err), HF_EUNSUPPORTED);
    cr_assert(strstr(err.text, "libcadical-dev"), "%s", err.text);
    hf_exact_options o;
    hf_exact_options_init(&o);
    o.d = 3;
    hf_family *f = NULL;
    cr_assert_eq(hf_exact_solve(p, &o, &f, NULL, &err), HF_EUNSUPPORTED);
    cr_assert(strstr(err.text, "libcadical-dev"), "%s", err.text);
    cr_assert_null(f);
    cr_assert_eq(hf_family_new(NULL, hf_poset_size(p), &f), HF_OK);
    hf_exact_verdict v;
    cr_assert_eq(hf_exact_remove_one(p, f, &o, &v, NULL, &err), HF_EUNSUPPORTED);
    cr_assert(strstr(err.text, "libcadical-dev"), "%s", err.text);
    hf_family_free(f);
    hf_poset_free(p);
}

Test(exact_nosat, auto_works_as_without_exact)
{
    hf_poset *p = page();
    hf_gen_options opt;
    hf_gen_options_init(&opt);
    opt.d = 3;
    uint64_t size;
    hf_method chosen;
    hf_error err;
    cr_assert_eq(hf_method_predict(p, &opt, &size, &chosen, &err), HF_OK, "%s", err.text);
    /* greedy, which auto weighs on forests of up to 32 events, finds the minimum 9 here */
    cr_assert_eq(chosen, HF_METHOD_GREEDY);
    cr_assert_eq(size, 9u);
    hf_family *f;
    cr_assert_eq(hf_family_new(NULL, hf_poset_size(p), &f), HF_OK);
    cr_assert_eq(hf_generate(p, &opt, hf_family_sink(f), NULL, &err), HF_OK, "%s", err.text);
    hf_verify_options vo = {.d = 3};
    hf_verify_result r;
    cr_assert_eq(hf_verify(p, f, &vo, &r, &err), HF_OK);
    cr_assert(r.hitting);
    cr_assert_eq(hf_family_size(f), 9u);
    hf_family_free(f);
    hf_poset_free(p);
}
