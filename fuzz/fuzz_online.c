/* Fuzz target: an online scheduling session (hitfam/online.h) driven by a harness that the input
 * writes, with a model of the protocol beside it that checks every promise the header makes.
 *
 * The input gives the session's options, a program (a forest of at most FZ_MAX_EVENTS events
 * labelled from a small set with duplicates, the empty label, '/', '#' and '\'; with the dynamic
 * bit, some events are posted only when a trigger event ran before their parent's handler: a
 * program that changes with the schedule), and for every step of every run which call plays it
 * (hf_online_post_user one child at a time then hf_online_next, hf_online_post_children then
 * hf_online_next, hf_online_step, hf_online_step_ids, their inline versions
 * hf_online_step_fast and hf_online_step_ids_fast from hitfam/online_inline.h, or a first child
 * posted alone and the rest by a step) and which misuse comes before it.
 *
 * Promises checked (abort() when broken):
 * - every misuse (a parent that is not the running event or no event of the run, a root after
 *   the run's first next, next with nothing pending, end_run with events pending, begin_run in
 *   an open run, a label longer than HF_MAX_NAME, a label id the session never gave, one bad
 *   label among the children of one call) is refused and changes nothing: the pending count,
 *   the run's events and the running event stay as they were;
 * - every call the protocol allows succeeds (but for HF_ENOMEM from the one failing allocation
 *   the input may ask for, which must leave the session as it was too);
 * - next returns a pending event, with the user value it was posted with;
 * - after each run: end_run's counts, the schedule is the run's events' nodes in the order they
 *   ran, every event's node has its parent's node as parent, distinct events have distinct
 *   nodes, and in a program that does not change an event has the same node in every run;
 * - a program that does not change, once end_run says no more runs are needed (before the
 *   options' max_runs): the schedules played form a d-hitting family of the union forest
 *   (hf_online_poset, hf_verify), within the strategy's bound for dfs and doubletree.
 *
 * Layout: byte 0: d - 1 (bits 0-1), strategy (bits 2-3: auto, dfs, doubletree, learn), size
 * hint (bit 4), huge pages (bit 5), a program that changes with the schedule (bit 6), one failing
 * allocation (bit 7) whose number is byte 1; byte 2: events - 1 (mod FZ_MAX_EVENTS,
 * FZ_MAX_EVENTS_D4 at d = 4); then two bytes per event v: its parent (b mod (v + 1); v itself: a
 * root) and its label (bits 0-2) and, in a dynamic program, whether it is conditional (bit 3) and
 * its trigger (bits 4-7 mod events); then one byte per step: the call (bits 0-2), the misuse (bits
 * 3-7: none for 0-15), and a byte more for the misuses that need one. When the input runs out,
 * every further byte reads 0. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <hitfam/hitfam.h>
#include <hitfam/online.h>
#include <hitfam/online_inline.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FZ_MAX_EVENTS        14u
#define FZ_MAX_EVENTS_D4     10u  /* learn at d = 4 replays up to hundreds of runs */
#define FZ_RUNS_SMALL        64u  /* runs of a session at d <= 3 */
#define FZ_RUNS_LEARN        400u /* runs of a learn session at d = 4 */
#define FZ_LEARN_SIMPLE_FROM 8u   /* events from which learn plays simple's family at d = 4 */

typedef struct input {
    const uint8_t *p;
    size_t left;
} input;

static uint8_t take(input *in)
{
    if (in->left == 0)
        return 0;
    in->left--;
    return *in->p++;
}

/* ---------------------------------------------------------------------------------------- */
/* One failing allocation                                                                     */

static long fz_alloc_count, fz_fail_at = -1;
static int fz_failed; /* the failing allocation was asked for */

static bool fz_fail_now(void)
{
    if (fz_alloc_count++ == fz_fail_at) {
        fz_failed = 1;
        return true;
    }
    return false;
}

static void *fz_malloc(size_t n, void *u)
{
    (void)u;
    return fz_fail_now() ? NULL : malloc(n);
}

static void *fz_realloc(void *p, size_t n, void *u)
{
    (void)u;
    return fz_fail_now() ? NULL : realloc(p, n);
}

static void fz_free(void *p, void *u)
{
    (void)u;
    free(p);
}

/* ---------------------------------------------------------------------------------------- */
/* The program and the model of a run                                                         */

static const char *const fz_labels[8] = {NULL, "a", "b", "", "a/b", "#1", "\\", "a"};

typedef struct program {
    uint32_t n;
    uint32_t parent[FZ_MAX_EVENTS]; /* HF_NO_EVENT: a root */
    uint8_t label[FZ_MAX_EVENTS];
    bool conditional[FZ_MAX_EVENTS];
    uint32_t trigger[FZ_MAX_EVENTS];
    bool dynamic; /* some event is conditional */
} program;

enum { PENDING = 0, RUNNING = 1, DONE = 2 };

/* The model of the open run: its events by handle (each is an event of the program, posted at
 * most once per run), their states, and what ran. */
typedef struct model {
    bool open, nexted;
    uint32_t nev, pending, running; /* running: a handle or HF_NO_EVENT */
    uint32_t posted;                /* children of the running event (or roots) posted so far */
    uint32_t prog[FZ_MAX_EVENTS], parent[FZ_MAX_EVENTS];
    uint8_t state[FZ_MAX_EVENTS];
    uint64_t user[FZ_MAX_EVENTS];
    bool ran[FZ_MAX_EVENTS]; /* by program event: it ran in this run */
    uint32_t played[FZ_MAX_EVENTS], nplayed;
} model;

typedef struct harness {
    hf_online *s;
    program pg;
    model m;
    input in;
    uint32_t ids[8]; /* the labels' ids (HF_ONLINE_NO_LABEL for NULL) */
    bool have_ids;
    uint64_t run;                    /* runs begun */
    bool enomem;                     /* some call failed for memory */
    uint32_t node_of[FZ_MAX_EVENTS]; /* by program event, HF_NO_EVENT until it ran once */
} harness;

/* The session's own view of the run agrees with the model. */
static void same_run(const harness *h)
{
    if (hf_online_pending(h->s) != (h->m.open ? h->m.pending : 0))
        abort();
    if (h->m.open && hf_online_run_events(h->s) != h->m.nev)
        abort();
}

/* A call refused: a status, and nothing changed. */
static void refused(const harness *h, hf_status st)
{
    if (st == HF_OK)
        abort();
    same_run(h);
}

/* A call the protocol allows: HF_OK, or HF_ENOMEM when the failing allocation came. */
static bool allowed(harness *h, hf_status st)
{
    if (st == HF_OK)
        return true;
    if (st != HF_ENOMEM || !fz_failed)
        abort();
    h->enomem = true;
    return false;
}

/* The program events the handler of @p pv (HF_NO_EVENT: the roots) posts now, in order. */
static uint32_t children_now(const harness *h, uint32_t pv, uint32_t *out)
{
    uint32_t k = 0;
    for (uint32_t v = 0; v < h->pg.n; v++)
        if (h->pg.parent[v] == pv && (!h->pg.conditional[v] || h->m.ran[h->pg.trigger[v]]))
            out[k++] = v;
    return k;
}

static uint64_t user_of(const harness *h, uint32_t v)
{
    return (uint64_t)v << 32 | (h->run & 0xffffffffu);
}

/* The model takes the children @p kids (program events) of the running event as posted. */
static void model_post(harness *h, const uint32_t *kids, uint32_t k)
{
    for (uint32_t i = 0; i < k; i++) {
        uint32_t e = h->m.nev++;
        h->m.prog[e] = kids[i];
        h->m.parent[e] = h->m.running;
        h->m.state[e] = PENDING;
        h->m.user[e] = user_of(h, kids[i]);
        h->m.pending++;
    }
    h->m.posted += k;
}

/* The model takes @p e as the event next returned (HF_NO_EVENT: none was pending). */
static void model_next(harness *h, uint32_t e, uint64_t user, bool with_user)
{
    if (h->m.running != HF_NO_EVENT)
        h->m.state[h->m.running] = DONE;
    h->m.running = HF_NO_EVENT;
    h->m.nexted = true;
    h->m.posted = 0;
    if (e == HF_NO_EVENT) {
        if (h->m.pending != 0)
            abort();
        return;
    }
    if (e >= h->m.nev || h->m.state[e] != PENDING)
        abort();
    if (hf_online_event_user(h->s, e) != h->m.user[e] || (with_user && user != h->m.user[e]))
        abort();
    h->m.state[e] = RUNNING;
    h->m.running = e;
    h->m.pending--;
    h->m.ran[h->m.prog[e]] = true;
    h->m.played[h->m.nplayed++] = e;
}

/* ---------------------------------------------------------------------------------------- */
/* Misuse                                                                                      */

/* A label one byte longer than HF_MAX_NAME, of byte @p c (free it). */
static char *too_long_label(char c)
{
    char *big = malloc(HF_MAX_NAME + 2);
    if (!big)
        abort();
    memset(big, c, HF_MAX_NAME + 1);
    big[HF_MAX_NAME + 1] = '\0';
    return big;
}

static void misuse(harness *h, unsigned kind)
{
    hf_error err;
    uint32_t e;
    hf_status st;
    switch (kind % 8) {
    case 0: { /* a parent that is not the running event */
        uint32_t p = take(&h->in) % (h->m.nev + 3);
        if (p == h->m.running)
            p = h->m.nev + 7;
        st = hf_online_post(h->s, p, "a", &e, &err);
        refused(h, st);
        break;
    }
    case 1: /* a root after the first next */
        if (h->m.nexted)
            refused(h, hf_online_post(h->s, HF_NO_EVENT, "r", &e, &err));
        break;
    case 2: { /* next with nothing pending, once the running event posted all its children:
               * refused, and (online.h) the running event is done, the run over */
        uint32_t kids[FZ_MAX_EVENTS];
        uint32_t pv = h->m.running == HF_NO_EVENT ? HF_NO_EVENT : h->m.prog[h->m.running];
        if (h->m.pending > 0 || !h->m.nexted || children_now(h, pv, kids) != h->m.posted)
            break;
        refused(h, hf_online_next(h->s, &e, &err));
        if (h->m.running != HF_NO_EVENT)
            h->m.state[h->m.running] = DONE;
        h->m.running = HF_NO_EVENT;
        break;
    }
    case 3: /* end_run with events pending: the run stays open */
        if (h->m.pending > 0)
            refused(h, hf_online_end_run(h->s, NULL, &err));
        break;
    case 4: /* begin_run in an open run */
        refused(h, hf_online_begin_run(h->s, &err));
        break;
    case 5: { /* a label that is too long, for the running event or the roots */
        uint32_t p = h->m.nexted ? h->m.running : HF_NO_EVENT;
        if (p == HF_NO_EVENT && h->m.nexted)
            break;
        char *big = too_long_label('x');
        refused(h, hf_online_post(h->s, p, big, &e, &err));
        free(big);
        break;
    }
    case 6: { /* a label id the session never gave, among good ones */
        if (!h->have_ids || (h->m.nexted && h->m.running == HF_NO_EVENT))
            break;
        uint32_t ids[3] = {h->ids[1], 0x7ffffff0u, h->ids[2]};
        uint64_t u;
        refused(h, hf_online_step_ids(h->s, 3, ids, NULL, &e, &u, &err));
        break;
    }
    default: { /* one label too long among the children of one call */
        if (h->m.nexted && h->m.running == HF_NO_EVENT)
            break;
        char *big = too_long_label('y');
        const char *labels[3] = {"a", NULL, big};
        refused(h, hf_online_post_children(h->s, h->m.nexted ? h->m.running : HF_NO_EVENT, 3,
                                           labels, NULL, NULL, &err));
        free(big);
        break;
    }
    }
}

/* ---------------------------------------------------------------------------------------- */
/* One step: post the running event's children (the roots first), then take the next event     */

/* Returns false when the run is over (nothing pending after the posts) or a call failed for
 * memory (the step is then tried again by the caller with the next input byte). */
static bool step(harness *h, bool *over)
{
    uint8_t op = take(&h->in);
    if (op >> 3 >= 16)
        misuse(h, op >> 3);
    uint32_t kids[FZ_MAX_EVENTS];
    if (h->m.nexted && h->m.running == HF_NO_EVENT) { /* a refused next ended the run */
        *over = true;
        return false;
    }
    uint32_t pv = h->m.running == HF_NO_EVENT ? HF_NO_EVENT : h->m.prog[h->m.running];
    uint32_t k = children_now(h, pv, kids);
    uint32_t parent = h->m.running; /* HF_NO_EVENT: the roots, before the first next */
    hf_error err;
    hf_status st;
    uint32_t e = HF_NO_EVENT;
    uint64_t u = 0;
    unsigned way = op & 7;
    if ((way == 3 || way == 5) && !h->have_ids)
        way = 2;
    if (way >= 6 && k > h->m.posted) { /* the next child alone, then a step with the rest */
        uint32_t v = kids[h->m.posted];
        st =
            hf_online_post_user(h->s, parent, fz_labels[h->pg.label[v]], user_of(h, v), NULL, &err);
        if (!allowed(h, st)) {
            same_run(h);
            return true;
        }
        model_post(h, &v, 1);
        same_run(h);
    }
    if (way >= 6)
        way = 2;
    /* the children posted already (alone just now, or by a call that failed for memory after
     * posting them) are not posted again */
    memmove(kids, kids + h->m.posted, (k - h->m.posted) * sizeof *kids);
    k -= h->m.posted;
    const char *labels[FZ_MAX_EVENTS];
    uint32_t ids[FZ_MAX_EVENTS];
    uint64_t users[FZ_MAX_EVENTS];
    for (uint32_t i = 0; i < k; i++) {
        labels[i] = fz_labels[h->pg.label[kids[i]]];
        ids[i] = h->ids[h->pg.label[kids[i]]];
        users[i] = user_of(h, kids[i]);
    }
    if (way <= 1) {
        if (way == 0) {
            for (uint32_t i = 0; i < k; i++) {
                uint32_t got;
                st = hf_online_post_user(h->s, parent, labels[i], users[i], &got, &err);
                if (!allowed(h, st)) {
                    same_run(h);
                    return true;
                }
                if (got != h->m.nev)
                    abort();
                model_post(h, kids + i, 1);
            }
        } else {
            uint32_t first = HF_NO_EVENT;
            st = hf_online_post_children(h->s, parent, k, labels, users, &first, &err);
            if (!allowed(h, st)) {
                same_run(h);
                return true;
            }
            if (k > 0 && first != h->m.nev)
                abort();
            model_post(h, kids, k);
        }
        same_run(h);
        if (h->m.pending == 0) { /* the last event stays running until end_run */
            *over = true;
            return false;
        }
        st = hf_online_next(h->s, &e, &err);
        if (!allowed(h, st)) {
            same_run(h);
            return true;
        }
        model_next(h, e, 0, false);
        same_run(h);
        return true;
    }
    switch (way) {
    case 2:
        st = hf_online_step(h->s, k, labels, users, &e, &u, &err);
        break;
    case 3:
        st = hf_online_step_ids(h->s, k, ids, users, &e, &u, &err);
        break;
    case 4:
        st = hf_online_step_fast(h->s, k, labels, users, &e, &u, &err);
        break;
    default:
        st = hf_online_step_ids_fast(h->s, k, ids, users, &e, &u, &err);
        break;
    }
    if (!allowed(h, st)) {
        same_run(h);
        return true;
    }
    model_post(h, kids, k);
    model_next(h, e, u, true);
    same_run(h);
    if (e == HF_NO_EVENT) {
        *over = true;
        return false;
    }
    return true;
}

/* ---------------------------------------------------------------------------------------- */
/* Runs                                                                                       */

/* After a run's end: the session's record of it against the model. */
static void check_run(harness *h, const hf_online_run_result *r, size_t run)
{
    if (r->events != h->m.nev || r->runs != run + 1 || r->nodes != hf_online_nodes(h->s))
        abort();
    uint32_t len;
    const uint32_t *sched = hf_online_schedule(h->s, run, &len);
    if (!sched || len != h->m.nev || h->m.nplayed != h->m.nev)
        abort();
    for (uint32_t i = 0; i < len; i++)
        if (sched[i] != hf_online_event_node(h->s, h->m.played[i]))
            abort();
    for (uint32_t e = 0; e < h->m.nev; e++) {
        uint32_t node = hf_online_event_node(h->s, e);
        if (node >= r->nodes)
            abort();
        uint32_t pe = h->m.parent[e];
        uint32_t want = pe == HF_NO_EVENT ? HF_NO_EVENT : hf_online_event_node(h->s, pe);
        if (hf_online_node_parent(h->s, node) != want)
            abort();
        for (uint32_t f = 0; f < e; f++)
            if (hf_online_event_node(h->s, f) == node)
                abort();
        uint32_t v = h->m.prog[e];
        if (!h->pg.dynamic) {
            if (h->node_of[v] != HF_NO_EVENT && h->node_of[v] != node)
                abort();
            h->node_of[v] = node;
        }
    }
}

/* The schedules played form a d-hitting family of the union forest. */
static void check_coverage(const harness *h, unsigned d)
{
    hf_poset *p = NULL;
    hf_error err;
    if (hf_online_poset(h->s, &p, &err) != HF_OK)
        abort();
    uint32_t n = hf_poset_size(p);
    hf_family *f = NULL;
    if (hf_family_new(NULL, n, &f) != HF_OK)
        abort();
    for (size_t k = 0; k < hf_online_runs(h->s); k++) {
        uint32_t len;
        const uint32_t *sched = hf_online_schedule(h->s, k, &len);
        if (len != n || hf_family_append(f, sched) != HF_OK)
            abort();
    }
    hf_verify_options o;
    hf_verify_options_init(&o);
    o.d = d;
    o.threads = 1;
    hf_verify_result res;
    if (hf_verify(p, f, &o, &res, &err) != HF_OK || !res.hitting)
        abort();
    hf_family_free(f);
    hf_poset_free(p);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    harness h;
    memset(&h, 0, sizeof h);
    h.in = (input){data, size};
    uint8_t b0 = take(&h.in), b1 = take(&h.in);
    unsigned d = 1 + (b0 & 3);
    hf_online_options o;
    hf_online_options_init(&o);
    o.d = d;
    o.strategy = (hf_online_strategy)((b0 >> 2) & 3);
    if (o.strategy == HF_ONLINE_DFS && d > 2)
        o.strategy = HF_ONLINE_AUTO;
    if (o.strategy == HF_ONLINE_DOUBLETREE && d > 3)
        o.strategy = HF_ONLINE_LEARN;
    bool dynamic = b0 & 64;

    h.pg.n = 1 + take(&h.in) % (d == 4 ? FZ_MAX_EVENTS_D4 : FZ_MAX_EVENTS);
    if (b0 & 16)
        o.size_hint = h.pg.n;
    o.huge_pages = b0 & 32;
    for (uint32_t v = 0; v < h.pg.n; v++) {
        uint32_t p = take(&h.in) % (v + 1);
        uint8_t lb = take(&h.in);
        h.pg.parent[v] = p == v ? HF_NO_EVENT : p;
        h.pg.label[v] = lb & 7;
        h.pg.conditional[v] = dynamic && p != v && (lb & 8);
        h.pg.trigger[v] = (uint32_t)(lb >> 4) % h.pg.n;
        h.pg.dynamic |= h.pg.conditional[v];
        h.node_of[v] = HF_NO_EVENT;
    }
    o.max_runs = d == 4 ? FZ_RUNS_LEARN : FZ_RUNS_SMALL;
    /* learn replays auto's family, and auto runs greedy at d = 4 on forests of up to 9 events
     * (lib/gen_greedy.c): seconds under ASan with coverage for each plan from 8 events on, so
     * there learn plays simple's family */
    if (d == 4 && h.pg.n >= FZ_LEARN_SIMPLE_FROM)
        o.learn_method = HF_METHOD_SIMPLE;

    hf_ctx *ctx = NULL;
    hf_allocator a = {fz_malloc, fz_realloc, fz_free, NULL};
    fz_fail_at = -1;
    if (hf_ctx_new(&a, NULL, NULL, &ctx) != HF_OK)
        abort();
    /* allocation number b1 of the session fails, when the input asks for it */
    fz_alloc_count = 0;
    fz_failed = 0;
    fz_fail_at = (b0 & 128) ? (long)b1 : -1;
    hf_error err;
    hf_status st = hf_online_new(ctx, &o, &h.s, &err);
    if (st != HF_OK) {
        if (st != HF_ENOMEM || !fz_failed || h.s)
            abort();
        hf_ctx_free(ctx);
        return 0;
    }
    h.have_ids = true;
    for (int i = 0; i < 8; i++) {
        h.ids[i] = HF_ONLINE_NO_LABEL;
        if (fz_labels[i] && hf_online_label_id(h.s, fz_labels[i], &h.ids[i], &err) != HF_OK) {
            if (!fz_failed)
                abort();
            h.have_ids = false;
        }
    }

    hf_online_run_result r = {.more = true};
    size_t ended = 0;
    /* a bounded number of calls in all: a failing allocation retried cannot loop forever */
    unsigned budget = 4 * FZ_MAX_EVENTS * (FZ_RUNS_LEARN + 1);
    while (r.more && ended < o.max_runs && budget > 0) {
        if ((st = hf_online_begin_run(h.s, &err)) != HF_OK) {
            if (!allowed(&h, st))
                continue;
        }
        memset(&h.m, 0, sizeof h.m);
        h.m.open = true;
        h.m.running = HF_NO_EVENT;
        h.run++;
        bool over = false;
        while (!over && budget-- > 0)
            step(&h, &over);
        if (!over)
            break; /* the budget ran out mid-run: the session is freed with the run open */
        /* a child of the event that ran last, once a step said the run is over: it is done */
        if ((take(&h.in) & 1) && h.m.running == HF_NO_EVENT && h.m.nplayed > 0)
            refused(&h, hf_online_post(h.s, h.m.played[h.m.nplayed - 1], "late", NULL, &err));
        st = hf_online_end_run(h.s, &r, &err);
        if (st != HF_OK) {
            (void)allowed(&h, st); /* HF_ENOMEM: the run is closed, and another asked for */
            if (!r.more)
                abort();
        } else {
            check_run(&h, &r, ended);
        }
        ended++;
        h.m.open = false;
        uint32_t e;
        refused(&h, hf_online_next(h.s, &e, &err));
    }
    fz_fail_at = -1; /* the checks below allocate through the session's context too */
    if (!r.more && !h.pg.dynamic && !h.enomem && ended < o.max_runs) {
        check_coverage(&h, d);
        hf_online_strategy sp = hf_online_strategy_of(h.s);
        if ((sp == HF_ONLINE_DFS || sp == HF_ONLINE_DOUBLETREE) && ended > r.bound)
            abort();
    }
    hf_online_free(h.s);
    hf_ctx_free(ctx);
    return 0;
}
