/* d >= 3 on forests and in-forests: one schedule per pattern (CAV 2016, Section 5, Lemma 3,
 * breadth-first pieces), deduplicated by a hash each schedule gets from its pieces alone. This
 * file sets a run up and drives its passes; lib/pattern_walk.c walks the patterns and
 * lib/pattern_pieces.c hashes their pieces and tests them (lib/pattern_i.h: what they share). */
#include <stdlib.h>
#include <string.h>

#include "forest.h"
#include "mod61.h"
#include "pattern_i.h"
#include "poset_i.h"

/* The hash works modulo 2^61 - 1 (lib/mod61.h) with two bases. */
#define MODP HF_I_MODP

static const uint64_t BASE[2] = {UINT64_C(0x1c8f3a5b7d2e4f61) % MODP,
                                 UINT64_C(0x0b5ad4eceda1ce2b) % MODP};

/* ---------------------------------------------------------------------------------------- */
/* Set-up and the method                                                                    */

typedef struct cls_key {
    uint32_t real, cnt, c0, c1, pos;
} cls_key;

static int cmp_cls_key(const void *a, const void *b)
{
    const cls_key *x = a, *y = b;
    const uint32_t kx[5] = {x->real, x->cnt, x->c0, x->c1, x->pos},
                   ky[5] = {y->real, y->cnt, y->c0, y->c1, y->pos};
    for (int i = 0; i < 5; i++)
        if (kx[i] != ky[i])
            return kx[i] < ky[i] ? -1 : 1;
    return 0;
}

/* Classes of isomorphic subtrees per depth (children in order, real flags kept), deepest level
 * first, each represented by its first node in breadth-first order: hf_i_pattern_realised()
 * computes one value per class. Needs depth, bfs, layer_end and real. O(n log n). */
static hf_status classes(run *r)
{
    const hf_i_tree *t = r->t;
    uint32_t n = r->n, nchild = t->child_off[n], ncls = 0;
    uint32_t *cls = hf_i_alloc_array(r->ctx, n, sizeof *cls);
    uint32_t *first = hf_i_alloc_array(r->ctx, n, sizeof *first);
    cls_key *keys = hf_i_alloc_array(r->ctx, n, sizeof *keys);
    r->rep = hf_i_alloc_array(r->ctx, n, sizeof *r->rep);
    r->rep_end = hf_i_alloc_array(r->ctx, (size_t)r->h + 1, sizeof *r->rep_end);
    r->crep = hf_i_alloc_array(r->ctx, (size_t)nchild + 1, sizeof *r->crep);
    if (!cls || !first || !keys || !r->rep || !r->rep_end || !r->crep) {
        hf_i_free(r->ctx, cls);
        hf_i_free(r->ctx, first);
        hf_i_free(r->ctx, keys);
        return HF_ENOMEM;
    }
    for (uint32_t D = r->h + 1; D-- > 0;) {
        uint32_t lo = D ? r->layer_end[D - 1] : 0, hi = r->layer_end[D];
        for (uint32_t i = lo; i < hi; i++) {
            uint32_t u = r->bfs[i], co = t->child_off[u], cnt = t->child_off[u + 1] - co;
            cls_key k = {r->real[u], cnt, 0, 0, i};
            if (cnt > 2) /* not binarized: a class of its own */
                k.c0 = k.c1 = UINT32_MAX;
            else {
                if (cnt > 0)
                    k.c0 = cls[t->child[co]];
                if (cnt > 1)
                    k.c1 = cls[t->child[co + 1]];
            }
            keys[i - lo] = k;
        }
        qsort(keys, hi - lo, sizeof *keys, cmp_cls_key);
        for (uint32_t j = 0; j < hi - lo; j++) {
            const cls_key *a = &keys[j], *b = j ? &keys[j - 1] : NULL;
            if (!b || a->real != b->real || a->cnt != b->cnt || a->c0 != b->c0 || a->c1 != b->c1 ||
                a->cnt > 2)
                first[ncls++] = a->pos;
            cls[r->bfs[a->pos]] = ncls - 1;
        }
    }
    uint32_t nrep = 0;
    for (uint32_t D = 0, i = 0; D <= r->h; D++) {
        for (; i < r->layer_end[D]; i++)
            if (first[cls[r->bfs[i]]] == i)
                r->rep[nrep++] = r->bfs[i];
        r->rep_end[D] = nrep;
    }
    for (uint32_t j = 0; j < nchild; j++)
        r->crep[j] = r->bfs[first[cls[t->child[j]]]];
    hf_i_free(r->ctx, cls);
    hf_i_free(r->ctx, first);
    hf_i_free(r->ctx, keys);
    return HF_OK;
}

static void run_free(run *r)
{
    hf_ctx *ctx = r->ctx;
    void *bufs[] = {r->rep,       r->rep_end,   r->crep,    r->depth,   r->bfs, r->fc,
                    r->layer_end, r->real,      r->hasreal, r->best,    r->row, r->sbuf,
                    r->pc,        r->next_fork, r->ph,      r->pw,      r->tn,  r->fpool,
                    r->lp,        r->tkey,      r->tval,    r->scratch, r->sig, r->sigmask,
                    r->keys.slot, r->rbits};
    for (size_t i = 0; i < sizeof bufs / sizeof *bufs; i++)
        hf_i_free(ctx, bufs[i]);
    hf_i_emitter_free(r->em);
    hf_i_tree_free(r->t);
}

/* Tree, depths, breadth-first order, real-event flags, prefix hashes, the root's set. O(n)
 * after the tree (plus O(log p) for the inverse bases). */
static hf_status run_init(run *r, const hf_poset *p, const hf_gen_options *opt, hf_error *err)
{
    hf_i_tree_options topt = {HF_I_GADGET_WEIGHTED, opt->focus, opt->focus_count};
    hf_status st = hf_i_tree_new(p, &topt, &r->t, err);
    if (st)
        return st;
    const hf_i_tree *t = r->t;
    hf_ctx *ctx = r->ctx = t->ctx;
    uint32_t n = r->n = t->n;
    r->h = t->height;
    r->depth = hf_i_alloc_array(ctx, n, sizeof *r->depth);
    r->bfs = hf_i_alloc_array(ctx, n, sizeof *r->bfs);
    r->fc = hf_i_alloc_array(ctx, (size_t)n + 1, sizeof *r->fc);
    r->layer_end = hf_i_calloc(ctx, (size_t)r->h + 1, sizeof *r->layer_end);
    r->next_fork = hf_i_alloc_array(ctx, (size_t)r->h + 1, sizeof *r->next_fork);
    r->real = hf_i_malloc(ctx, n);
    r->hasreal = hf_i_malloc(ctx, n);
    r->best = hf_i_alloc_array(ctx, ((size_t)MAXM + 1) * n, 1);
    r->row = hf_i_alloc_array(ctx, n, sizeof *r->row);
    r->sbuf = hf_i_alloc_array(ctx, n, sizeof *r->sbuf);
    r->pc = hf_i_alloc_array(ctx, (size_t)n + 1, sizeof *r->pc);
    r->ph = hf_i_alloc_array(ctx, 2 * ((size_t)n + 1), sizeof *r->ph);
    if (!r->depth || !r->bfs || !r->fc || !r->layer_end || !r->real || !r->hasreal || !r->best ||
        !r->row || !r->sbuf || !r->pc || !r->ph || !r->next_fork || hf_i_emitter_new(t, &r->em))
        return hf_i_fail(err, HF_ENOMEM, 0, 0, "out of memory");
    uint32_t head = 0, tail_ = 0, nreal = 0;
    r->bfs[tail_++] = t->root;
    r->depth[t->root] = 0;
    r->fc[0] = 1;
    while (head < tail_) {
        uint32_t u = r->bfs[head++];
        r->layer_end[r->depth[u]] = head;
        r->fc[head] = r->fc[head - 1] + (t->child_off[u + 1] - t->child_off[u]);
        for (uint32_t c = t->child_off[u]; c < t->child_off[u + 1]; c++) {
            r->depth[t->child[c]] = r->depth[u] + 1;
            r->bfs[tail_++] = t->child[c];
        }
    }
    for (uint32_t L = 1; L <= r->h; L++)
        if (r->layer_end[L] < r->layer_end[L - 1])
            r->layer_end[L] = r->layer_end[L - 1];
    for (uint32_t L = 0; L <= r->h; L++)
        r->next_fork[L] = r->h;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t u = r->bfs[i];
        if (t->child_off[u + 1] - t->child_off[u] >= 2 && r->depth[u] < r->next_fork[r->depth[u]])
            r->next_fork[r->depth[u]] = r->depth[u];
    }
    for (uint32_t L = r->h; L-- > 0;)
        if (r->next_fork[L + 1] < r->next_fork[L])
            r->next_fork[L] = r->next_fork[L + 1];
    for (uint32_t i = n; i-- > 0;) {
        uint32_t u = r->bfs[i];
        r->real[u] = t->orig[u] != HF_NO_EVENT;
        nreal += r->real[u];
        r->hasreal[u] = r->real[u] ? 0 : -1;
        for (uint32_t c = t->child_off[u]; c < t->child_off[u + 1]; c++)
            if (r->hasreal[t->child[c]] == 0)
                r->hasreal[u] = 0;
    }
    r->nreal = nreal;
    if (classes(r))
        return hf_i_fail(err, HF_ENOMEM, 0, 0, "out of memory");
    r->dd = opt->d < nreal ? opt->d : nreal;
    if (r->dd == 0)
        r->dd = 1;
    /* powers of the bases and their inverses (p is prime), then prefix hashes */
    r->pw = hf_i_alloc_array(ctx, 4 * ((size_t)nreal + 1), sizeof *r->pw);
    if (!r->pw)
        return hf_i_fail(err, HF_ENOMEM, 0, 0, "out of memory");
    r->ipw = r->pw + 2 * ((size_t)nreal + 1);
    for (int i = 0; i < 2; i++) {
        uint64_t *pw = r->pw + i * ((size_t)nreal + 1), *ipw = r->ipw + i * ((size_t)nreal + 1);
        uint64_t inv = hf_i_powmod(BASE[i], MODP - 2);
        pw[0] = ipw[0] = 1;
        for (uint32_t j = 1; j <= nreal; j++) {
            pw[j] = hf_i_mulmod(pw[j - 1], BASE[i]);
            ipw[j] = hf_i_mulmod(ipw[j - 1], inv);
        }
    }
    r->pc[0] = 0;
    r->ph[0] = r->ph[n + 1] = 0;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t u = r->bfs[i];
        r->pc[i + 1] = r->pc[i] + r->real[u];
        for (int k = 0; k < 2; k++) {
            uint64_t g = r->real[u] ? hf_i_fmix64((uint64_t)u * 2 + (uint64_t)k + 1) % MODP : 0;
            r->ph[k * ((size_t)n + 1) + i + 1] = hf_i_addmod(
                r->ph[k * ((size_t)n + 1) + i], hf_i_mulmod(g, r->pw[k * (nreal + 1) + r->pc[i]]));
        }
    }
    if (HF_I_GROW(ctx, r->scratch, &r->scratch_cap, 4))
        return hf_i_fail(err, HF_ENOMEM, 0, 0, "out of memory");
    r->scratch[0] = 0; /* the root's position */
    bool guard = r->guard;
    r->guard = false;
    st = hf_i_pattern_tnode_add(r, 0, 1);
    r->guard = guard;
    if (st)
        return hf_i_fail(err, HF_ENOMEM, 0, 0, "out of memory");
    return HF_OK;
}

/* Size the hash set for `keys` keys up front (at most half its slots used, as
 * hf_i_keyset_add keeps it): the hashing passes then never rehash, which cost a fifth of a
 * slice job's time on a 300-event random tree (d = 4). A no-op when the set exists. */
static hf_status keys_reserve(run *r, uint64_t keys)
{
    if (r->keys.slot || keys == 0)
        return HF_OK;
    size_t cap = 256;
    while (cap / 2 < keys)
        cap *= 2;
    r->keys.slot = hf_i_calloc(r->ctx, cap, sizeof *r->keys.slot);
    if (!r->keys.slot)
        return HF_ENOMEM;
    r->keys.cap = cap;
    r->keys.used = 0;
    return HF_OK;
}

static hf_status one_pass(run *r, int pass)
{
    pat P;
    r->pass = pass;
    r->rbits_pos = 0;
    r->st = (hf_i_pattern_stats){0};
    return hf_i_pattern_each_shape(r, &P, 0, 1, 0, 0);
}

hf_status hf_i_pattern_run(const hf_poset *p, const hf_gen_options *opt, unsigned flags,
                           const hf_sink *sink, hf_i_pattern_stats *stats, hf_error *err)
{
    if (!p || !opt || opt->d < 1 || opt->d > HF_MAX_D || (unsigned)opt->pattern_mode > 2)
        return hf_i_fail(err, HF_EINVAL, 0, 0, "invalid argument");
    run r = {0};
    r.mode = opt->pattern_mode;
    r.out = sink;
    r.row_first = opt->row_first;
    r.row_last = opt->row_last;
    r.guard = !(flags & HF_I_PATTERN_NO_GUARD);
    r.plain_tests = flags & HF_I_PATTERN_PLAIN_TESTS;
    hf_status st = run_init(&r, p, opt, err);
    if (!st) {
        if (flags & HF_I_PATTERN_UNREDUCED) {
            st = one_pass(&r, PASS_UNREDUCED);
        } else if (sink && r.row_first && (flags & HF_I_PATTERN_PREDICTED)) {
            /* A slice after the prediction: that walk ran the guard's walks on the same
             * options, so one walk is left, which tests, hashes and builds as it goes and
             * stops after the slice's last row (the rows up to it are all hashed: at least
             * that many keys). */
            r.guard = false;
            st = keys_reserve(&r, r.row_last + r.row_last / 2);
            if (!st)
                st = one_pass(&r, PASS_EMIT);
            if (st == HF_EABORTED && r.rows_done)
                st = HF_OK;
        } else {
            /* With the guard, cheap walks first, each charging part of the full walk's work
             * and refusing when that part passes a limit: the bound (the sigmas, the tests'
             * cost, only the probes tested), then the count (the tests, recorded for the later
             * passes, and the patterns; no constraint set, no hash). */
            if (r.guard && r.mode != HF_PATTERN_ALL)
                st = one_pass(&r, PASS_BOUND);
            if (r.guard && !st) {
                r.record = true;
                st = one_pass(&r, PASS_COUNT);
                r.record = false;
                r.replay = true;
            } else {
                r.record = sink != NULL;
            }
            /* the count pass (or the measure pass below) knows how many patterns get hashed */
            if (!st && r.guard)
                st = keys_reserve(&r, r.st.patterns);
            if (!st && !sink)
                st = one_pass(&r, PASS_PREDICT);
            else if (!st && !(st = one_pass(&r, PASS_MEASURE))) {
                /* the same walk again: no refusal once emitting */
                r.guard = false;
                r.record = false;
                r.replay = true;
                /* a slice hashes the patterns up to its last row only: about that many keys
                 * (the set grows as usual past them) */
                uint64_t keys = r.st.patterns;
                if (r.row_last && r.row_last < keys / 2)
                    keys = r.row_last + r.row_last / 2;
                st = keys_reserve(&r, keys);
                if (!st)
                    st = one_pass(&r, PASS_EMIT);
                if (st == HF_EABORTED && r.rows_done)
                    st = HF_OK;
            }
        }
        if (st == HF_ETOOLARGE)
            hf_i_fail(err, st, 0, 0,
                      "method pattern: more than %" PRIu64 " steps of work or %" PRIu64
                      " patterns for d=%u on this tree (binarized height %" PRIu32
                      "); use simple or doubletree",
                      (uint64_t)HF_I_PATTERN_MAX_WORK, (uint64_t)HF_I_PATTERN_MAX_PATTERNS, opt->d,
                      r.h);
        else if (st == HF_ENOMEM)
            hf_i_fail(err, st, 0, 0, "out of memory");
    }
    if (stats)
        *stats = r.st;
    run_free(&r);
    return st;
}

static hf_status pattern_check(const hf_poset *p, const hf_gen_options *opt, hf_error *err)
{
    if (opt->d < 3)
        return hf_i_fail(err, HF_EUNSUPPORTED, 0, 0,
                         "method pattern builds d-hitting families for d >= 3 (d=%u asked); use "
                         "dfs for d <= 2",
                         opt->d);
    if (!(p->shape & (HF_SHAPE_FOREST | HF_SHAPE_INFOREST)))
        return hf_i_fail(err, HF_EUNSUPPORTED, 0, 0,
                         "method pattern needs a forest or an in-forest; this order has an event "
                         "with two predecessors and one with two successors");
    return HF_OK;
}

/* The walk with piece hashes and the hash set, no schedule built: see gen_pattern.h. */
static hf_status pattern_predict(const hf_poset *p, const hf_gen_options *opt, mpz_t size,
                                 hf_error *err)
{
    hf_i_pattern_stats s;
    hf_status st = hf_i_pattern_run(p, opt, 0, NULL, &s, err);
    if (st)
        return st;
    uint64_t count = s.distinct;
    mpz_set_ui(size, 0);
    mpz_import(size, 1, -1, sizeof count, 0, 0, &count); /* exact whatever the width of long */
    return HF_OK;
}

/* A slice reaches the method from lib/gen.c only, which predicts the size first (it needs it for
 * the header and to refuse rows beyond the family): that prediction ran the guard on the same
 * options, so the slice is generated in one walk that stops after its last row. */
static hf_status pattern_generate(const hf_poset *p, const hf_gen_options *opt, hf_sink sink,
                                  hf_error *err)
{
    return hf_i_pattern_run(p, opt, HF_I_PATTERN_PREDICTED, &sink, NULL, err);
}

/* For d = 3 doubletree was smaller than pattern on every tree measured
 * (papers/chistikov2016/pattern_table.md): auto weighs pattern from d = 4 on. */
static hf_i_auto_rule pattern_auto_rule(const hf_poset *p, unsigned d)
{
    (void)p;
    return d == 3 ? HF_I_AUTO_ADVISE : HF_I_AUTO_WEIGH;
}

const hf_i_method hf_i_method_pattern = {
    .id = HF_METHOD_PATTERN,
    .name = "pattern",
    .check = pattern_check,
    .predict = pattern_predict,
    .generate = pattern_generate,
    .predict_runs = false,
    .auto_rule = pattern_auto_rule,
    .rows = true,
};
