/* d <= 2: the two depth-first preorders of a forest (Claim 3.1 of Chistikov, Majumdar, Niksic,
 * CAV 2016). Incomparable events split at their lowest common ancestor, and the left-to-right and
 * right-to-left preorders order them oppositely; a chain needs one schedule. */
#include "forest.h"
#include "gen.h"
#include "poset_i.h"

static bool dfs_applies(const hf_poset *p, unsigned d)
{
    return d == 1 || (d == 2 && (p->shape & (HF_SHAPE_FOREST | HF_SHAPE_INFOREST)));
}

static hf_status dfs_check(const hf_poset *p, const hf_gen_options *opt, hf_error *err)
{
    if (dfs_applies(p, opt->d))
        return HF_OK;
    if (opt->d > 2)
        return hf_i_fail(err, HF_EUNSUPPORTED, 0, 0,
                         "method dfs builds 1- and 2-hitting families only (d=%u asked)", opt->d);
    return hf_i_fail(err, HF_EUNSUPPORTED, 0, 0,
                     "method dfs needs a forest or an in-forest; this order has an event with "
                     "two predecessors and one with two successors");
}

static uint32_t dfs_count(const hf_poset *p, unsigned d)
{
    return d == 1 || (p->shape & HF_SHAPE_CHAIN) ? 1 : 2;
}

static hf_status dfs_predict(const hf_poset *p, const hf_gen_options *opt, mpz_t size,
                             hf_error *err)
{
    (void)err;
    mpz_set_ui(size, dfs_count(p, opt->d));
    return HF_OK;
}

/* Preorder of the tree; children taken left to right, or right to left. O(n), no recursion. */
static void preorder(const hf_i_tree *t, bool right_to_left, uint32_t *stack, uint32_t *out)
{
    uint32_t sp = 0, k = 0;
    stack[sp++] = t->root;
    while (sp > 0) {
        uint32_t v = stack[--sp];
        out[k++] = v;
        uint32_t lo = t->child_off[v], hi = t->child_off[v + 1];
        /* push so that the child to visit first is on top */
        if (right_to_left)
            for (uint32_t i = lo; i < hi; i++)
                stack[sp++] = t->child[i];
        else
            for (uint32_t i = hi; i-- > lo;)
                stack[sp++] = t->child[i];
    }
}

static hf_status dfs_generate(const hf_poset *p, const hf_gen_options *opt, hf_sink sink,
                              hf_error *err)
{
    if (!(p->shape & (HF_SHAPE_FOREST | HF_SHAPE_INFOREST))) /* d = 1 on any order */
        return hf_i_row_want_of(opt, 0) == HF_I_ROW_TAKE ? sink.put(sink.user, p->topo, p->n)
                                                         : HF_OK;
    hf_i_tree *t;
    hf_status st = hf_i_tree_new(p, NULL, &t, err);
    if (st)
        return st;
    hf_i_emitter *em = NULL;
    uint32_t *stack = hf_i_alloc_array(p->ctx, t->n, sizeof *stack);
    uint32_t *order = hf_i_alloc_array(p->ctx, t->n, sizeof *order);
    if (!stack || !order || hf_i_emitter_new(t, &em)) {
        st = hf_i_fail(err, HF_ENOMEM, 0, 0, "out of memory");
        goto out;
    }
    uint32_t count = dfs_count(p, opt->d);
    for (uint32_t k = 0; k < count && !st; k++) {
        /* a slice (opt->row_first): each row is computed on its own */
        hf_i_row_want want = hf_i_row_want_of(opt, k);
        if (want == HF_I_ROW_DONE)
            break;
        if (want == HF_I_ROW_SKIP)
            continue;
        preorder(t, k == 1, stack, order);
        st = hf_i_emit(em, order, sink);
    }
out:
    hf_i_free(p->ctx, stack);
    hf_i_free(p->ctx, order);
    hf_i_emitter_free(em);
    hf_i_tree_free(t);
    return st;
}

const hf_i_method hf_i_method_dfs = {
    .id = HF_METHOD_DFS,
    .name = "dfs",
    .check = dfs_check,
    .predict = dfs_predict,
    .generate = dfs_generate,
    .rows = true,
};
