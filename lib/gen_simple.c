/* d >= 3 on forests and in-forests: the simple family of Claim 3.2 (Chistikov, Majumdar, Niksic,
 * CAV 2016), every distinct schedule emitted once, and its pruned variant (section 6).
 *
 * Above the ~700 lines asked of lib/ files, on purpose: nearly all of it (the views, the
 * placement with undo, the visit that emits or counts, and the job that drives them) is the one
 * duplicate-free search described below, which reads as a whole; what a split could move out is
 * the method's thin registry part (check, predict, generate and the pruned entry points, about
 * 150 lines), at the price of exposing the search's state in a header. */
#include <string.h>

#include "forest.h"
#include "gen_simple.h"
#include "poset_i.h"

/* How each distinct schedule is emitted once (k = d - 2; C = the candidate prefix events: every
 * real node, or the racing ones).
 *
 * A prefix a_1..a_k places Q, the union of the root paths of the a_i, path by path, and the
 * schedule is Q followed by the rest in lambda (or rho) preorder. Q is fixed by the C-events in
 * it, e_1..e_c, each preceded by the non-C nodes between the placed part and it, and each e_i's
 * nearest C-ancestor comes earlier. Such a Q comes from some prefix iff c >= k and Q has at most
 * k runs (maximal stretches in which each node is a child of the one before; runs end at
 * C-events): the k path ends go to the run ends and to any further C-events. The Q giving one
 * schedule S = Q lambda(rest) are the prefixes of S of that kind that leave a lambda-sorted rest;
 * S is emitted for the shortest only. Cutting Q back to its previous C-event keeps both
 * properties iff c > k and the last appended path is what lambda places next: the last C-event is
 * the first C-event on the first-child descent from the first unplaced node in preorder (the
 * "extension" of the shorter Q). So every Q with c == k, or whose last C-event is not the
 * extension of its predecessor, gives a schedule of its own.
 *
 * The same holds for rho. Lambda and rho order a set alike only when it is a chain, so a schedule
 * lies in both halves iff the rest after its longest valid Q is a chain or empty, which needs at
 * most k + 1 leaves; the rho half skips those after an O(n) membership test, and the count
 * subtracts them.
 *
 * The search walks over e_1..e_c depth first, without recursion: a step appends one unplaced
 * C-event whose nearest C-ancestor is placed (a doubly linked list with undo holds them), either
 * continuing the run (a C-child of the last event) or, while fewer than k runs exist, starting a
 * new one. A step costs O(appended path + k). Every sequence with c < k lies below an emitted one
 * and the skipped extensions form chains of total path length <= n above an emitted one, so
 * generation takes O(d n) per schedule, amortised, and O(n) memory. Counting visits only the
 * sequences with fewer than k runs and adds the rest from subtree sizes (count_below,
 * count_new_runs); d = 3 has a closed form (count_d3). */

/* Predict for d >= 5 stops after visiting this many placed sequences (about a second). */
#define PREDICT_MAX_VISITS 20000000u

/* One traversal direction: 0 = children left to right (lambda), 1 = right to left (rho). The
 * first-child descents ("chains") are consecutive in preorder, which makes the first unplaced node
 * in preorder cheap to find: placed sets are closed under ancestors, so a chain's placed nodes are
 * a prefix of it, and only chains ending at a placed leaf (at most k of them) are fully placed. */
typedef struct view {
    uint32_t *ord;   /* preorder */
    uint32_t *pre;   /* node -> position in ord */
    uint32_t *ctop;  /* top of the chain through the node */
    uint32_t *clen;  /* at chain tops: nodes of the chain */
    uint32_t *ccnt;  /* at chain tops: placed nodes of the chain */
    uint32_t *lcand; /* first candidate on the first-child descent from the node, or NONE */
    uint32_t *lcnt;  /* candidates on the first-child descent from the node */
} view;

/* A node of the search: a placed sequence ending at candidate e. */
typedef struct frame {
    uint32_t e;      /* NONE at the empty sequence */
    uint32_t qlen;   /* length of the placed sequence before e's path */
    uint32_t m;      /* runs */
    uint32_t phase;  /* 0: continue the run below e; 1: start a new run; 2: done */
    uint32_t it;     /* position in e's candidate children, or the last list entry tried */
    uint32_t ext[2]; /* per view: the candidate the completion would place next (if c >= k) */
    bool newruns;    /* phase 1 enumerates (counting may have done it at once) */
} frame;

typedef struct search {
    hf_ctx *ctx;
    const hf_i_tree *t;
    uint32_t n, k, ncand;
    const uint32_t *parent;
    uint8_t *cand;
    uint32_t *fcpar; /* nearest candidate proper ancestor */
    uint32_t *fcoff; /* candidate children, CSR, in lambda preorder */
    uint32_t *fckid;
    view v[2];
    uint8_t *placed;
    uint32_t *q; /* the placed sequence */
    uint32_t qlen;
    uint32_t *path;
    uint32_t *nxt, *prv; /* the eligible candidates: circular list, sentinel n */
    frame *fr;
    /* unplaced nodes with a placed parent (or the unplaced root): how many, sum of their ids */
    uint32_t front_cnt;
    uint64_t front_sum;
    uint64_t *kidsum;
    uint8_t *ispath;   /* the subtree is a chain */
    uint8_t *leaves;   /* leaves of the subtree, at most 3 counted */
    uint32_t *fsize;   /* candidates in the subtree */
    uint32_t *tsize;   /* nodes of the subtree */
    uint32_t *cleaf;   /* candidate leaves in the subtree */
    uint64_t elig_sum; /* fsize summed over the eligible list */
    bool shared;       /* at most k + 1 leaves: the two halves may share schedules */
    uint32_t *sched;   /* generation only */
    /* a slice (gen.h): the index of the next emitted row, the rows wanted, whether it is out */
    uint64_t row, row_first, row_last;
    bool rows_done;
} search;

typedef struct tally {
    uint64_t lam, rho, both, visits;
} tally;

static void search_free(search *s)
{
    hf_ctx *ctx = s->ctx;
    for (int w = 0; w < 2; w++) {
        hf_i_free(ctx, s->v[w].ord);
        hf_i_free(ctx, s->v[w].pre);
        hf_i_free(ctx, s->v[w].ctop);
        hf_i_free(ctx, s->v[w].clen);
        hf_i_free(ctx, s->v[w].ccnt);
        hf_i_free(ctx, s->v[w].lcand);
        hf_i_free(ctx, s->v[w].lcnt);
    }
    hf_i_free(ctx, s->cand);
    hf_i_free(ctx, s->fcpar);
    hf_i_free(ctx, s->fcoff);
    hf_i_free(ctx, s->fckid);
    hf_i_free(ctx, s->placed);
    hf_i_free(ctx, s->q);
    hf_i_free(ctx, s->path);
    hf_i_free(ctx, s->nxt);
    hf_i_free(ctx, s->prv);
    hf_i_free(ctx, s->fr);
    hf_i_free(ctx, s->kidsum);
    hf_i_free(ctx, s->ispath);
    hf_i_free(ctx, s->leaves);
    hf_i_free(ctx, s->fsize);
    hf_i_free(ctx, s->tsize);
    hf_i_free(ctx, s->cleaf);
    hf_i_free(ctx, s->sched);
}

static hf_status search_alloc(const hf_i_tree *t, search *s, bool gen)
{
    memset(s, 0, sizeof *s);
    hf_ctx *ctx = t->ctx;
    size_t n = t->n;
    s->ctx = ctx;
    s->t = t;
    s->n = t->n;
    s->parent = t->parent;
    bool ok = true;
    for (int w = 0; w < 2; w++) {
        view *vw = &s->v[w];
        ok &= (vw->ord = hf_i_alloc_array(ctx, n, sizeof *vw->ord)) != NULL;
        ok &= (vw->pre = hf_i_alloc_array(ctx, n, sizeof *vw->pre)) != NULL;
        ok &= (vw->ctop = hf_i_alloc_array(ctx, n, sizeof *vw->ctop)) != NULL;
        ok &= (vw->clen = hf_i_alloc_array(ctx, n, sizeof *vw->clen)) != NULL;
        ok &= (vw->ccnt = hf_i_alloc_array(ctx, n, sizeof *vw->ccnt)) != NULL;
        ok &= (vw->lcand = hf_i_alloc_array(ctx, n, sizeof *vw->lcand)) != NULL;
        ok &= (vw->lcnt = hf_i_alloc_array(ctx, n, sizeof *vw->lcnt)) != NULL;
    }
    ok &= (s->cand = hf_i_calloc(ctx, n, 1)) != NULL;
    ok &= (s->fcpar = hf_i_alloc_array(ctx, n, sizeof *s->fcpar)) != NULL;
    ok &= (s->fcoff = hf_i_alloc_array(ctx, n + 2, sizeof *s->fcoff)) != NULL;
    ok &= (s->fckid = hf_i_alloc_array(ctx, n, sizeof *s->fckid)) != NULL;
    ok &= (s->placed = hf_i_calloc(ctx, n, 1)) != NULL;
    ok &= (s->q = hf_i_alloc_array(ctx, n, sizeof *s->q)) != NULL;
    ok &= (s->path = hf_i_alloc_array(ctx, n, sizeof *s->path)) != NULL;
    ok &= (s->nxt = hf_i_alloc_array(ctx, n + 1, sizeof *s->nxt)) != NULL;
    ok &= (s->prv = hf_i_alloc_array(ctx, n + 1, sizeof *s->prv)) != NULL;
    ok &= (s->fr = hf_i_alloc_array(ctx, n + 1, sizeof *s->fr)) != NULL;
    ok &= (s->kidsum = hf_i_alloc_array(ctx, n, sizeof *s->kidsum)) != NULL;
    ok &= (s->ispath = hf_i_alloc_array(ctx, n, 1)) != NULL;
    ok &= (s->leaves = hf_i_alloc_array(ctx, n, 1)) != NULL;
    ok &= (s->fsize = hf_i_alloc_array(ctx, n, sizeof *s->fsize)) != NULL;
    ok &= (s->tsize = hf_i_alloc_array(ctx, n, sizeof *s->tsize)) != NULL;
    ok &= (s->cleaf = hf_i_alloc_array(ctx, n, sizeof *s->cleaf)) != NULL;
    if (gen)
        ok &= (s->sched = hf_i_alloc_array(ctx, n, sizeof *s->sched)) != NULL;
    if (!ok) {
        search_free(s);
        return HF_ENOMEM;
    }
    return HF_OK;
}

static uint32_t first_child(const hf_i_tree *t, uint32_t v, int w)
{
    uint32_t lo = t->child_off[v], hi = t->child_off[v + 1];
    if (lo == hi)
        return NONE;
    return w ? t->child[hi - 1] : t->child[lo];
}

static void view_build(search *s, int w)
{
    const hf_i_tree *t = s->t;
    view *vw = &s->v[w];
    uint32_t n = s->n, *stack = s->path, sp = 0, k = 0;
    stack[sp++] = t->root;
    while (sp > 0) {
        uint32_t x = stack[--sp];
        vw->pre[x] = k;
        vw->ord[k++] = x;
        uint32_t lo = t->child_off[x], hi = t->child_off[x + 1];
        if (w) /* the child to visit first goes on top */
            for (uint32_t i = lo; i < hi; i++)
                stack[sp++] = t->child[i];
        else
            for (uint32_t i = hi; i-- > lo;)
                stack[sp++] = t->child[i];
    }
    for (uint32_t i = 0; i < n; i++) {
        uint32_t x = vw->ord[i], par = s->parent[x];
        vw->ctop[x] = par != NONE && first_child(t, par, w) == x ? vw->ctop[par] : x;
        vw->clen[x] = 0;
        vw->ccnt[x] = 0;
    }
    for (uint32_t i = 0; i < n; i++)
        vw->clen[vw->ctop[vw->ord[i]]]++;
    for (uint32_t i = n; i-- > 0;) {
        uint32_t x = vw->ord[i], fc = first_child(t, x, w);
        vw->lcand[x] = s->cand[x] ? x : fc == NONE ? NONE : vw->lcand[fc];
        vw->lcnt[x] = s->cand[x] + (fc == NONE ? 0 : vw->lcnt[fc]);
    }
}

/* After the candidates are marked: k, both views, the candidate forest, subtree flags. */
static void search_prepare(search *s, unsigned d)
{
    const hf_i_tree *t = s->t;
    uint32_t n = s->n;
    s->ncand = 0;
    for (uint32_t v = 0; v < n; v++)
        s->ncand += s->cand[v];
    /* With fewer than d-2 candidates no admissible d-tuple has its first d-2 entries among them;
     * taking every candidate into the prefix still gives a family hitting all shorter tuples. */
    s->k = d - 2 < s->ncand ? d - 2 : s->ncand;
    view_build(s, 0);
    view_build(s, 1);
    const uint32_t *ord = s->v[0].ord;
    uint32_t *near = s->q; /* nearest candidate ancestor-or-self; q is free until the search */
    memset(s->fcoff, 0, (n + 2) * sizeof *s->fcoff);
    for (uint32_t i = 0; i < n; i++) {
        uint32_t x = ord[i], par = s->parent[x];
        uint32_t up = par == NONE ? NONE : near[par];
        near[x] = s->cand[x] ? x : up;
        s->fcpar[x] = up;
        if (s->cand[x] && up != NONE)
            s->fcoff[up + 2]++;
    }
    for (uint32_t v = 0; v < n; v++)
        s->fcoff[v + 2] += s->fcoff[v + 1];
    for (uint32_t i = 0; i < n; i++) {
        uint32_t x = ord[i];
        if (s->cand[x] && s->fcpar[x] != NONE)
            s->fckid[s->fcoff[s->fcpar[x] + 1]++] = x;
    }
    uint32_t leaves = 0;
    for (uint32_t i = n; i-- > 0;) {
        uint32_t x = ord[i], lo = t->child_off[x], hi = t->child_off[x + 1];
        uint64_t sum = 0;
        uint32_t fsize = s->cand[x], tsize = 1, lv = hi == lo, cleaf = hi == lo && s->cand[x];
        for (uint32_t j = lo; j < hi; j++) {
            uint32_t y = t->child[j];
            sum += y;
            fsize += s->fsize[y];
            tsize += s->tsize[y];
            lv += s->leaves[y];
            cleaf += s->cleaf[y];
        }
        s->kidsum[x] = sum;
        s->fsize[x] = fsize;
        s->tsize[x] = tsize;
        s->leaves[x] = (uint8_t)(lv < 3 ? lv : 3);
        s->cleaf[x] = cleaf;
        s->ispath[x] = hi == lo || (hi - lo == 1 && s->ispath[t->child[lo]]);
        leaves += hi == lo;
    }
    s->shared = leaves <= s->k + 1;
}

static void list_append(search *s, uint32_t u)
{
    uint32_t head = s->n;
    s->prv[u] = s->prv[head];
    s->nxt[u] = head;
    s->nxt[s->prv[head]] = u;
    s->prv[head] = u;
    s->elig_sum += s->fsize[u];
}

/* u keeps its links, so list_restore puts it back once everything later is undone. */
static void list_remove(search *s, uint32_t u)
{
    s->nxt[s->prv[u]] = s->nxt[u];
    s->prv[s->nxt[u]] = s->prv[u];
    s->elig_sum -= s->fsize[u];
}

static void list_restore(search *s, uint32_t u)
{
    s->nxt[s->prv[u]] = u;
    s->prv[s->nxt[u]] = u;
    s->elig_sum += s->fsize[u];
}

static void place(search *s, uint32_t x)
{
    const hf_i_tree *t = s->t;
    s->placed[x] = 1;
    s->q[s->qlen++] = x;
    s->v[0].ccnt[s->v[0].ctop[x]]++;
    s->v[1].ccnt[s->v[1].ctop[x]]++;
    s->front_cnt += t->child_off[x + 1] - t->child_off[x];
    s->front_cnt--;
    s->front_sum += s->kidsum[x] - x;
}

static void unplace_to(search *s, uint32_t qlen)
{
    const hf_i_tree *t = s->t;
    while (s->qlen > qlen) {
        uint32_t x = s->q[--s->qlen];
        s->placed[x] = 0;
        s->v[0].ccnt[s->v[0].ctop[x]]--;
        s->v[1].ccnt[s->v[1].ctop[x]]--;
        s->front_cnt++;
        s->front_cnt -= t->child_off[x + 1] - t->child_off[x];
        s->front_sum -= s->kidsum[x] - x;
    }
}

/* Append candidate u: its unplaced ancestors top-down, then u. */
static void apply(search *s, uint32_t u)
{
    uint32_t len = 0;
    for (uint32_t x = u; x != NONE && !s->placed[x]; x = s->parent[x])
        s->path[len++] = x;
    while (len > 0)
        place(s, s->path[--len]);
    list_remove(s, u);
    for (uint32_t i = s->fcoff[u]; i < s->fcoff[u + 1]; i++)
        list_append(s, s->fckid[i]);
}

static void undo(search *s, const frame *g)
{
    uint32_t u = g->e;
    for (uint32_t i = s->fcoff[u + 1]; i-- > s->fcoff[u];)
        list_remove(s, s->fckid[i]);
    list_restore(s, u);
    unplace_to(s, g->qlen);
}

/* The candidate the completion in view w places next: the first one on the first-child descent
 * from the first unplaced node in preorder. O(k). */
static uint32_t extension(const search *s, int w)
{
    const view *vw = &s->v[w];
    uint32_t v = s->t->root;
    for (;;) {
        uint32_t cc = vw->ccnt[v];
        if (cc < vw->clen[v])
            return vw->lcand[vw->ord[vw->pre[v] + cc]];
        uint32_t p = vw->pre[v] + vw->clen[v];
        if (p >= s->n)
            return NONE;
        v = vw->ord[p]; /* the node after a leaf never is a first child: a chain top */
    }
}

/* The schedule: the placed sequence, then the rest in the view's preorder. */
static void build(search *s, int w)
{
    memcpy(s->sched, s->q, (size_t)s->qlen * sizeof *s->q);
    uint32_t j = s->qlen;
    const uint32_t *ord = s->v[w].ord;
    for (uint32_t i = 0; i < s->n; i++)
        if (!s->placed[ord[i]])
            s->sched[j++] = ord[i];
}

/* Whether schedule S of the tree is in the lambda half: some prefix that comes from a k-prefix
 * (ends at a candidate, c >= k, at most k runs, runs end at candidates) leaves a lambda-sorted
 * tail. The longest such prefix decides. O(n). */
static bool in_lambda(const search *s, const uint32_t *S)
{
    uint32_t n = s->n, k = s->k;
    const uint32_t *pre = s->v[0].pre;
    uint32_t t = n - 1;
    while (t > 0 && pre[S[t - 1]] < pre[S[t]])
        t--;
    int64_t best = k == 0 ? 0 : -1;
    uint32_t c = 0, m = 0;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t x = S[i];
        if (i == 0)
            m = 1;
        else if (s->parent[x] != S[i - 1]) {
            if (!s->cand[S[i - 1]])
                break;
            m++;
        }
        if (m > k)
            break;
        if (s->cand[x] && ++c >= k)
            best = (int64_t)i + 1;
    }
    return best >= (int64_t)t;
}

/* Whether the schedule of f's sequence, completed, is the same in both views and f is the longest
 * valid prefix of it: the rest is empty or a chain, and appending the chain up to its first
 * candidate would break the run limit (or it has none). O(1). */
static bool in_both(const search *s, const frame *f)
{
    if (s->front_cnt == 0)
        return true;
    if (s->front_cnt != 1)
        return false;
    uint32_t z = (uint32_t)s->front_sum;
    if (!s->ispath[z])
        return false;
    if (s->fsize[z] == 0)
        return true;
    bool newrun = f->e == NONE || s->parent[z] != f->e;
    return f->m + newrun > s->k;
}

static bool in_subtree(const search *s, int w, uint32_t e, uint32_t x)
{
    const uint32_t *pre = s->v[w].pre;
    return pre[e] < pre[x] && pre[x] < pre[e] + s->tsize[e];
}

/* Counting at a sequence ending at e with k runs: what its proper continuations (one per
 * candidate below e, all with c > k) add. The lambda completion's next candidate lies below e
 * only if everything before e in preorder is placed; then exactly the candidates on the
 * first-child descent below e repeat a shorter sequence's schedule. Shared schedules need the
 * rest to become a chain, which the shape of e's subtree and the other unplaced nodes decide. */
static void count_below(const search *s, const frame *f, tally *ty)
{
    const hf_i_tree *t = s->t;
    uint32_t e = f->e, below = s->fsize[e] - 1;
    for (int w = 0; w < 2; w++) {
        uint32_t x = f->ext[w];
        uint64_t repeat = x != NONE && in_subtree(s, w, e, x) ? s->v[w].lcnt[x] : 0;
        *(w ? &ty->rho : &ty->lam) += below - repeat;
    }
    uint32_t kids = t->child_off[e + 1] - t->child_off[e];
    if (!s->shared || kids == 0)
        return;
    uint32_t others = s->front_cnt - kids;
    if (others == 1) { /* run to the leaf of a path below e; the other rest must be a chain */
        uint32_t z = (uint32_t)(s->front_sum - s->kidsum[e]);
        ty->both += s->leaves[e] == 1 && s->cleaf[e] == 1 && s->ispath[z];
    } else if (others == 0 && s->leaves[e] == 1) { /* run to the deepest candidate */
        ty->both += s->fsize[e] > 1;
    } else if (others == 0 && s->leaves[e] == 2) { /* run to a leaf, the other branch remains */
        ty->both += s->cleaf[e];
    }
}

/* Counting at a sequence with k - 1 runs and c >= k - 1 candidates when the halves share
 * nothing: every new run starting at an eligible candidate u, with all its continuations, adds
 * fsize(u) schedules per view, except the run to the view's next candidate (which repeats the
 * shorter schedule if c + 1 > k) and its first-child continuations below. */
static void count_new_runs(const search *s, const frame *f, uint32_t c, tally *ty)
{
    uint64_t sum = s->elig_sum - (f->e == NONE ? 0 : s->fsize[f->e] - 1);
    for (int w = 0; w < 2; w++) {
        uint32_t x = f->ext[w];
        uint64_t repeat = 0;
        if (x != NONE && (f->e == NONE || s->fcpar[x] != f->e))
            repeat = s->v[w].lcnt[x] - (c + 1 == s->k);
        *(w ? &ty->rho : &ty->lam) += sum - repeat;
    }
}

static hf_status visit(search *s, frame *f, const frame *par, uint32_t c, hf_i_emitter *em,
                       hf_sink sink, tally *ty)
{
    f->ext[0] = f->ext[1] = NONE;
    if (c >= s->k) {
        bool lam = c == s->k || f->e != par->ext[0];
        bool rho = c == s->k || f->e != par->ext[1];
        if (em) {
            hf_status st;
            /* a slice: the rows outside it are counted, not built (unless the halves share
             * schedules: a rho row is built to tell whether it is new) */
            if (lam && hf_i_row_want_in(s->row_first, s->row_last, s->row++) == HF_I_ROW_TAKE) {
                build(s, 0);
                if ((st = hf_i_emit(em, s->sched, sink)))
                    return st;
            }
            if (rho && s->shared) {
                build(s, 1);
                if (!in_lambda(s, s->sched) &&
                    hf_i_row_want_in(s->row_first, s->row_last, s->row++) == HF_I_ROW_TAKE &&
                    (st = hf_i_emit(em, s->sched, sink)))
                    return st;
            } else if (rho &&
                       hf_i_row_want_in(s->row_first, s->row_last, s->row++) == HF_I_ROW_TAKE) {
                build(s, 1);
                if ((st = hf_i_emit(em, s->sched, sink)))
                    return st;
            }
            if (hf_i_row_want_in(s->row_first, s->row_last, s->row) == HF_I_ROW_DONE) {
                s->rows_done = true;
                return HF_EABORTED;
            }
        } else {
            ty->lam += lam;
            ty->rho += rho;
            ty->both += s->shared && in_both(s, f);
        }
    }
    if (c >= s->k || (!em && f->m + 1 >= s->k)) {
        f->ext[0] = extension(s, 0);
        f->ext[1] = extension(s, 1);
    }
    if (em || f->e == NONE)
        return HF_OK;
    if (f->m == s->k) {
        count_below(s, f, ty);
        f->phase = 2;
    } else if (f->m + 1 == s->k && !s->shared) {
        count_new_runs(s, f, c, ty);
        f->newruns = false;
    }
    return HF_OK;
}

/* The search over placed sequences with at most k runs. em == NULL: count into ty. */
static hf_status search_run(search *s, hf_i_emitter *em, hf_sink sink, tally *ty,
                            uint64_t max_visits)
{
    uint32_t head = s->n;
    s->qlen = 0;
    s->front_cnt = 1;
    s->front_sum = s->t->root;
    s->nxt[head] = s->prv[head] = head;
    s->elig_sum = 0;
    for (uint32_t i = 0; i < s->n; i++) {
        uint32_t x = s->v[0].ord[i];
        if (s->cand[x] && s->fcpar[x] == NONE)
            list_append(s, x);
    }
    frame *fr = s->fr;
    uint32_t sp = 1;
    fr[0] = (frame){NONE, 0, 0, 1, head, {NONE, NONE}, true};
    hf_status st = visit(s, &fr[0], NULL, 0, em, sink, ty);
    while (!st && sp > 0) {
        frame *f = &fr[sp - 1];
        uint32_t u = NONE;
        bool newrun = false;
        if (f->phase == 0) {
            if (f->it < s->fcoff[f->e + 1])
                u = s->fckid[f->it++];
            else {
                f->phase = 1;
                f->it = head;
            }
        }
        if (u == NONE && f->phase == 1) {
            if (f->m < s->k && f->newruns)
                for (uint32_t x = s->nxt[f->it]; x != head; x = s->nxt[x])
                    if (f->e == NONE || s->fcpar[x] != f->e) { /* those continue the run */
                        u = x;
                        break;
                    }
            if (u == NONE)
                f->phase = 2;
            else {
                f->it = u;
                newrun = true;
            }
        }
        if (u == NONE) {
            if (sp > 1)
                undo(s, f);
            sp--;
            continue;
        }
        frame *g = &fr[sp++];
        *g = (frame){u, s->qlen, f->m + newrun, 0, s->fcoff[u], {NONE, NONE}, true};
        apply(s, u);
        if (++ty->visits > max_visits)
            return HF_ETOOLARGE;
        st = visit(s, g, f, sp - 1, em, sink, ty);
    }
    return st;
}

/* d = 3 in closed form. A sequence is one candidate path; the lambda half loses one schedule per
 * candidate on the leftmost spine below the first (they all give lambda itself), the rho half
 * likewise, and the halves share schedules only when the tree has one leaf (the chain itself) or
 * two (each candidate leaf leaves the other branch, a chain, to both completions). From the
 * number of candidates (at least one), the candidates on both spines, the leaves and the
 * candidate leaves. */
static uint64_t closed_d3(uint64_t ncand, const uint32_t spine[2], uint32_t leaves,
                          uint32_t cand_leaves)
{
    uint64_t total = 0;
    for (int w = 0; w < 2; w++)
        total += ncand - (spine[w] > 1 ? spine[w] - 1 : 0);
    if (leaves == 1)
        total -= 1;
    else if (leaves == 2)
        total -= cand_leaves;
    return total;
}

/* closed_d3 on the search's tree and candidates. */
static uint64_t count_d3(const search *s)
{
    const hf_i_tree *t = s->t;
    uint32_t spine[2] = {0, 0}, leaves = 0, cand_leaves = 0;
    for (int w = 0; w < 2; w++)
        for (uint32_t x = t->root; x != NONE; x = first_child(t, x, w))
            spine[w] += s->cand[x];
    for (uint32_t v = 0; v < s->n; v++)
        if (t->child_off[v] == t->child_off[v + 1]) {
            leaves++;
            cand_leaves += s->cand[v];
        }
    return closed_d3(s->ncand, spine, leaves, cand_leaves);
}

static void mpz_set_u64(mpz_t z, uint64_t v) { mpz_import(z, 1, -1, sizeof v, 0, 0, &v); }

/* What to build: the family of the focus-restricted tree (racing == NULL), or the pruned one. */
typedef struct job {
    const hf_poset *p;
    unsigned d;
    const uint32_t *focus;
    size_t focus_count;
    bool pruned;
    const uint32_t *racing;
    size_t racing_count;
    uint64_t max_visits;          /* counting only */
    uint64_t row_first, row_last; /* generation: a slice (gen.h) */
} job;

/* Generate into sink (sink.put != NULL) or count into size. */
static hf_status job_run(const job *j, hf_sink sink, mpz_t size, hf_error *err)
{
    bool gen = sink.put != NULL;
    if (!gen && j->d == 3 && !j->pruned && !j->focus && j->p->n > 0) {
        /* every event is a candidate: the closed form from the tree's outline, no tree built
         * (auto weighs simple on every forest) */
        uint32_t spine[2], leaves;
        if (hf_i_tree_outline(j->p, &leaves, spine))
            return hf_i_fail(err, HF_EUNSUPPORTED, 0, 0,
                             "the order is neither a forest nor an in-forest");
        mpz_set_u64(size, closed_d3(j->p->n, spine, leaves, leaves));
        return HF_OK;
    }
    hf_i_tree_options to = {HF_I_GADGET_NONE, j->pruned ? NULL : j->focus,
                            j->pruned ? 0 : j->focus_count};
    hf_i_tree *t;
    hf_status st = hf_i_tree_new(j->p, &to, &t, err);
    if (st)
        return st;
    search s;
    hf_i_emitter *em = NULL;
    if (search_alloc(t, &s, gen)) {
        hf_i_tree_free(t);
        return hf_i_fail(err, HF_ENOMEM, 0, 0, "out of memory");
    }
    if (j->pruned) {
        uint32_t *node_of = s.path; /* free until the search */
        for (uint32_t v = 0; v < t->n; v++)
            if (t->orig[v] != NONE)
                node_of[t->orig[v]] = v;
        for (size_t i = 0; i < j->racing_count; i++)
            s.cand[node_of[j->racing[i]]] = 1;
    } else {
        for (uint32_t v = 0; v < t->n; v++)
            s.cand[v] = t->orig[v] != NONE;
    }
    search_prepare(&s, j->d);
    tally ty = {0, 0, 0, 0};
    if (gen) {
        if (hf_i_emitter_new(t, &em))
            st = hf_i_fail(err, HF_ENOMEM, 0, 0, "out of memory");
        else {
            s.row_first = j->row_first;
            s.row_last = j->row_last;
            st = search_run(&s, em, sink, &ty, UINT64_MAX);
            if (st == HF_EABORTED && s.rows_done)
                st = HF_OK;
        }
    } else if (s.k == 1) {
        mpz_set_u64(size, count_d3(&s));
    } else {
        /* each visit adds at most 2n per view: the tallies cannot wrap */
        uint64_t cap = (UINT64_MAX / 8) / ((uint64_t)s.n + 1);
        st = search_run(&s, NULL, sink, &ty, j->max_visits < cap ? j->max_visits : cap);
        if (st == HF_ETOOLARGE)
            hf_i_fail(err, st, 0, 0,
                      "the simple family for d=%u is too large to count quickly: it has at least "
                      "%" PRIu64 " schedules",
                      j->d, ty.lam > ty.rho ? ty.lam : ty.rho);
        else
            mpz_set_u64(size, ty.lam + ty.rho - ty.both);
    }
    hf_i_emitter_free(em);
    search_free(&s);
    hf_i_tree_free(t);
    return st;
}

static hf_status simple_check(const hf_poset *p, const hf_gen_options *opt, hf_error *err)
{
    if (opt->d <= 2)
        return hf_i_fail(err, HF_EUNSUPPORTED, 0, 0,
                         "method simple builds d-hitting families for d >= 3 (d=%u asked); use "
                         "method dfs for d <= 2",
                         opt->d);
    if (!(p->shape & (HF_SHAPE_FOREST | HF_SHAPE_INFOREST)))
        return hf_i_fail(err, HF_EUNSUPPORTED, 0, 0,
                         "method simple needs a forest or an in-forest; this order has an event "
                         "with two predecessors and one with two successors");
    /* on the reversed tree of an in-forest the prefix would be the tuple's last entries */
    if (opt->focus_prefix && !(p->shape & HF_SHAPE_FOREST))
        return hf_i_fail(err, HF_EUNSUPPORTED, 0, 0,
                         "the pruned simple family (focus events first) needs a forest; this "
                         "order is an in-forest");
    return HF_OK;
}

static hf_status simple_predict(const hf_poset *p, const hf_gen_options *opt, mpz_t size,
                                hf_error *err)
{
    job j = {p, opt->d, opt->focus, opt->focus_count, false, NULL, 0, PREDICT_MAX_VISITS, 0, 0};
    if (opt->focus_prefix && opt->focus)
        j = (job){p, opt->d, NULL, 0, true, opt->focus, opt->focus_count, PREDICT_MAX_VISITS, 0, 0};
    return job_run(&j, (hf_sink){NULL, NULL}, size, err);
}

static hf_status simple_generate(const hf_poset *p, const hf_gen_options *opt, hf_sink sink,
                                 hf_error *err)
{
    job j = {p, opt->d, opt->focus, opt->focus_count, false, NULL, 0, 0, 0, 0};
    if (opt->focus_prefix && opt->focus)
        j = (job){p, opt->d, NULL, 0, true, opt->focus, opt->focus_count, 0, 0, 0};
    j.row_first = opt->row_first;
    j.row_last = opt->row_last;
    return job_run(&j, sink, NULL, err);
}

const hf_i_method hf_i_method_simple = {
    .id = HF_METHOD_SIMPLE,
    .name = "simple",
    .check = simple_check,
    .predict = simple_predict,
    .generate = simple_generate,
    .focus_prefix = true,
    .rows = true,
};

/* The registry checks its options before calling; the internal entry points check here. */
static hf_status check_args(const hf_poset *p, unsigned d, const uint32_t *ids, size_t count,
                            const char *what, hf_error *err)
{
    if (!p || (count && !ids))
        return hf_i_fail(err, HF_EINVAL, 0, 0, "invalid argument");
    if (d < 1 || d > HF_MAX_D)
        return hf_i_fail(err, HF_EINVAL, 0, 0, "d must be between 1 and %u (got %u)", HF_MAX_D, d);
    for (size_t i = 0; i < count; i++)
        if (ids[i] >= p->n)
            return hf_i_fail(err, HF_EINVAL, 0, 0, "%s event id %" PRIu32 " out of range", what,
                             ids[i]);
    hf_gen_options opt = {.d = d};
    return simple_check(p, &opt, err);
}

hf_status hf_i_simple_count(const hf_poset *p, unsigned d, const uint32_t *focus,
                            size_t focus_count, uint64_t max_visits, mpz_t size, hf_error *err)
{
    hf_status st = check_args(p, d, focus, focus_count, "focus", err);
    if (st)
        return st;
    job j = {p, d, focus, focus_count, false, NULL, 0, max_visits, 0, 0};
    return job_run(&j, (hf_sink){NULL, NULL}, size, err);
}

hf_status hf_i_simple_generate_pruned(const hf_poset *p, unsigned d, const uint32_t *racing,
                                      size_t racing_count, hf_sink sink, hf_error *err)
{
    if (!sink.put)
        return hf_i_fail(err, HF_EINVAL, 0, 0, "sink without a put function");
    hf_status st = check_args(p, d, racing, racing_count, "racing", err);
    if (st)
        return st;
    job j = {p, d, NULL, 0, true, racing, racing_count, 0, 0, 0};
    return job_run(&j, sink, NULL, err);
}

hf_status hf_i_simple_predict_pruned(const hf_poset *p, unsigned d, const uint32_t *racing,
                                     size_t racing_count, mpz_t size, hf_error *err)
{
    hf_status st = check_args(p, d, racing, racing_count, "racing", err);
    if (st)
        return st;
    job j = {p, d, NULL, 0, true, racing, racing_count, PREDICT_MAX_VISITS, 0, 0};
    return job_run(&j, (hf_sink){NULL, NULL}, size, err);
}
