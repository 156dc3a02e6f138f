/* Exhaustive and bounded enumeration of schedules (include/hitfam/enum.h): every linear
 * extension by adjacent transpositions, one schedule per trace, schedules of few preemptions. */
#include <string.h>

#include "enum_i.h"
#include "hitfam/enum.h"
#include "internal.h"
#include "poset_i.h"

void hf_enum_options_init(hf_enum_options *o)
{
    if (!o)
        return;
    memset(o, 0, sizeof *o);
    o->mode = HF_ENUM_ALL;
    o->max_work = HF_ENUM_DEFAULT_WORK;
}

const char *hf_enum_method_name(const hf_enum_options *o, char *buf, size_t cap)
{
    if (!o || !buf || cap < 32)
        return NULL;
    switch (o->mode) {
    case HF_ENUM_ALL:
        snprintf(buf, cap, "enum");
        return buf;
    case HF_ENUM_TRACES:
        snprintf(buf, cap, "traces");
        return buf;
    case HF_ENUM_PREEMPTIONS:
        snprintf(buf, cap, "preemptions-%" PRIu32, o->preemptions);
        return buf;
    case HF_ENUM_DELAYS:
        snprintf(buf, cap, "delays-%" PRIu32, o->delays);
        return buf;
    }
    return NULL;
}

const hf_enum_options *hf_i_enum_options(const hf_enum_options *o, hf_enum_options *def,
                                         hf_error *err)
{
    if (!o) {
        hf_enum_options_init(def);
        return def;
    }
    if (o->mode != HF_ENUM_ALL && o->mode != HF_ENUM_TRACES && o->mode != HF_ENUM_PREEMPTIONS &&
        o->mode != HF_ENUM_DELAYS) {
        hf_i_fail(err, HF_EINVAL, 0, 0,
                  "unknown enumeration mode %d (all linear extensions 0, traces 1, "
                  "preemption-bounded 2, delay-bounded 3)",
                  (int)o->mode);
        return NULL;
    }
    return o;
}

/* ---------------------------------------------------------------------------------------- */
/* The enumeration state                                                                     */

enum { RUN_FRESH, RUN_GOING, RUN_DONE, RUN_LIMIT };

struct hf_enum {
    const hf_poset *p;
    hf_ctx *ctx;
    hf_enum_mode mode;
    uint32_t n;
    uint32_t K;
    uint64_t limit;
    uint64_t given;
    int run;
    uint64_t work;      /* steps taken (hf_enum_count's bound) */
    uint64_t dead_ends; /* placed events after which no candidate was found */
    /* Varol-Rotem: a[1..n] is the current schedule as labels (label L is the event
     * p->topo[L - 1], so that labels increase along every chain), a[0] = 0 a sentinel label
     * below everything; inv is a's inverse. */
    uint32_t *a;
    uint32_t *inv;
    /* Depth-first search (traces, preemptions): the prefix seq[0..depth-1], whether each event
     * is placed, its unplaced Hasse predecessors. */
    uint32_t *seq;
    uint32_t depth;
    uint8_t *placed;
    uint32_t *indeg;
    /* preemptions and delays: each event's thread (a thread of its own, T + v, when it has
     * none), the threads' number nt = T + n, the number of enabled unplaced events of each
     * thread, and the preemptions or delays of each prefix */
    uint32_t *tid;
    uint32_t nt;
    uint32_t *enabled;
    uint32_t *pre;
    /* delays: what running each thread next costs after the current prefix (candidate fills
     * it once per scan, place reads it) */
    uint32_t *dcost;
    /* traces: whether any event touches an object (else no two events commute), and scratch
     * for the completion check */
    bool commuting;
    uint32_t *indeg2;
    uint32_t *queue;
    uint8_t *sleep; /* 1: enabled and asleep, 2: woken */
};

static bool less_label(const hf_enum *e, uint32_t l, uint32_t k)
{
    return l == 0 || hf_i_less(e->p, e->p->topo[l - 1], e->p->topo[k - 1]);
}

void hf_enum_free(hf_enum *e)
{
    if (!e)
        return;
    hf_ctx *ctx = e->ctx;
    hf_i_free(ctx, e->a);
    hf_i_free(ctx, e->inv);
    hf_i_free(ctx, e->seq);
    hf_i_free(ctx, e->placed);
    hf_i_free(ctx, e->indeg);
    hf_i_free(ctx, e->tid);
    hf_i_free(ctx, e->enabled);
    hf_i_free(ctx, e->pre);
    hf_i_free(ctx, e->dcost);
    hf_i_free(ctx, e->indeg2);
    hf_i_free(ctx, e->queue);
    hf_i_free(ctx, e->sleep);
    hf_i_free(ctx, e);
}

hf_status hf_enum_new(const hf_poset *p, const hf_enum_options *o, hf_enum **out, hf_error *err)
{
    hf_i_error_clear(err);
    if (out)
        *out = NULL;
    if (!p || !out)
        return hf_i_fail(err, HF_EINVAL, 0, 0, "invalid argument");
    hf_enum_options def;
    if (!(o = hf_i_enum_options(o, &def, err)))
        return HF_EINVAL;
    hf_ctx *ctx = p->ctx;
    uint32_t n = p->n;
    hf_enum *e = hf_i_calloc(ctx, 1, sizeof *e);
    if (!e)
        return hf_i_fail(err, HF_ENOMEM, 0, 0, "out of memory starting an enumeration");
    e->p = p;
    e->ctx = ctx;
    e->mode = o->mode;
    e->n = n;
    e->K = o->mode == HF_ENUM_DELAYS ? o->delays : o->preemptions;
    e->limit = o->limit;
    e->run = RUN_FRESH;
    bool ok = true;
    if (o->mode == HF_ENUM_ALL) {
        e->a = hf_i_alloc_array(ctx, (size_t)n + 1, sizeof *e->a);
        e->inv = hf_i_alloc_array(ctx, (size_t)n + 1, sizeof *e->inv);
        ok = e->a && e->inv;
    } else {
        e->seq = hf_i_alloc_array(ctx, n ? n : 1, sizeof *e->seq);
        e->placed = hf_i_calloc(ctx, n ? n : 1, 1);
        e->indeg = hf_i_alloc_array(ctx, n ? n : 1, sizeof *e->indeg);
        ok = e->seq && e->placed && e->indeg;
        if (ok && (o->mode == HF_ENUM_PREEMPTIONS || o->mode == HF_ENUM_DELAYS)) {
            uint32_t T = p->threads.count;
            e->nt = T + n;
            e->tid = hf_i_alloc_array(ctx, n ? n : 1, sizeof *e->tid);
            e->enabled = hf_i_calloc(ctx, (size_t)T + n + 1, sizeof *e->enabled);
            e->pre = hf_i_calloc(ctx, (size_t)n + 1, sizeof *e->pre);
            ok = e->tid && e->enabled && e->pre;
            if (ok && o->mode == HF_ENUM_DELAYS)
                ok = (e->dcost = hf_i_alloc_array(ctx, e->nt, sizeof *e->dcost)) != NULL;
        }
        if (ok && o->mode == HF_ENUM_TRACES) {
            e->commuting = p->objects.of != NULL;
            e->indeg2 = hf_i_alloc_array(ctx, n ? n : 1, sizeof *e->indeg2);
            e->queue = hf_i_alloc_array(ctx, n ? n : 1, sizeof *e->queue);
            e->sleep = hf_i_calloc(ctx, n ? n : 1, 1);
            ok = e->indeg2 && e->queue && e->sleep;
        }
    }
    if (!ok) {
        hf_enum_free(e);
        return hf_i_fail(err, HF_ENOMEM, 0, 0, "out of memory starting an enumeration");
    }
    if (o->mode == HF_ENUM_ALL) {
        for (uint32_t j = 0; j <= n; j++)
            e->a[j] = e->inv[j] = j;
    } else {
        for (uint32_t v = 0; v < n; v++)
            e->indeg[v] = (uint32_t)(p->pred_off[v + 1] - p->pred_off[v]);
        if (e->tid)
            for (uint32_t v = 0; v < n; v++) {
                uint32_t t = p->threads.of ? p->threads.of[v] : HF_NO_EVENT;
                e->tid[v] = t != HF_NO_EVENT ? t : p->threads.count + v;
                if (e->indeg[v] == 0)
                    e->enabled[e->tid[v]]++;
            }
    }
    *out = e;
    return HF_OK;
}

uint64_t hf_enum_given(const hf_enum *e) { return e ? e->given : 0; }

uint64_t hf_i_enum_dead_ends(const hf_enum *e) { return e ? e->dead_ends : 0; }

uint64_t hf_i_enum_work(const hf_enum *e) { return e ? e->work : 0; }

/* ---------------------------------------------------------------------------------------- */
/* Every linear extension: Varol and Rotem's method                                          */

/* Y. L. Varol and D. Rotem, "An algorithm to generate all topological sorting arrangements",
 * The Computer Journal 24(1), 1981 (also D. E. Knuth, The Art of Computer Programming 4A,
 * 7.2.1.2, Algorithm V). Events are labelled 1..n along a topological order, so label k is
 * maximal among 1..k. The extensions of {1..k} are those of {1..k-1} with k inserted at each
 * position after its last predecessor; the method lists them by moving k left one place at a
 * time, and when the event on k's left is a predecessor (for adjacent events: iff it is below
 * k, since anything between them would have to sit between them), it moves k back to the end
 * and advances the extensions of {1..k-1} the same way. While label k moves, labels above k
 * stay at their home positions. A schedule costs one successful move; a failed move of label k
 * costs the distance k travelled (paid by its moves) plus one, and at most n fail in a row:
 * amortised O(n) per schedule, O(1) when few labels are blocked. */
static bool all_advance(hf_enum *e)
{
    uint32_t *a = e->a, *inv = e->inv;
    for (uint32_t k = e->n; k > 0; k--) {
        e->work++;
        uint32_t j = inv[k], l = a[j - 1];
        if (!less_label(e, l, k)) {
            a[j - 1] = k;
            a[j] = l;
            inv[k] = j - 1;
            inv[l] = j;
            return true;
        }
        e->work += k - j;
        for (; j < k; j++) {
            l = a[j + 1];
            a[j] = l;
            inv[l] = j;
        }
        a[k] = k;
        inv[k] = k;
    }
    return false;
}

/* ---------------------------------------------------------------------------------------- */
/* Depth-first search over prefixes (traces, preemptions)                                    */

/* What placing enabled v next costs: a preemption when the last event's thread is another one
 * and still has an enabled event; the delays of running v's thread, from the table candidate
 * made for the current prefix (delay_costs). */
static uint32_t cost_of(const hf_enum *e, uint32_t v)
{
    if (e->mode == HF_ENUM_DELAYS)
        return e->dcost[e->tid[v]];
    uint32_t last = e->depth > 0 ? e->tid[e->seq[e->depth - 1]] : 0;
    return e->depth > 0 && e->tid[v] != last && e->enabled[last] > 0;
}

/* Delays: the cost of each thread after the current prefix, into e->dcost. */
static void delay_costs(hf_enum *e)
{
    uint32_t last = e->depth > 0 ? e->tid[e->seq[e->depth - 1]] : 0;
    hf_i_enum_delay_costs(e->enabled, e->nt, last, e->dcost);
    e->work += e->nt;
}

static void place(hf_enum *e, uint32_t v)
{
    const hf_poset *p = e->p;
    if (e->tid) {
        e->pre[e->depth + 1] = e->pre[e->depth] + cost_of(e, v);
        e->enabled[e->tid[v]]--;
    }
    e->placed[v] = 1;
    e->seq[e->depth++] = v;
    for (size_t i = p->succ_off[v]; i < p->succ_off[v + 1]; i++) {
        uint32_t s = p->succ[i];
        if (--e->indeg[s] == 0 && e->tid)
            e->enabled[e->tid[s]]++;
    }
}

static uint32_t unplace(hf_enum *e)
{
    const hf_poset *p = e->p;
    uint32_t v = e->seq[--e->depth];
    for (size_t i = p->succ_off[v]; i < p->succ_off[v + 1]; i++) {
        uint32_t s = p->succ[i];
        if (e->indeg[s]++ == 0 && e->tid)
            e->enabled[e->tid[s]]--;
    }
    e->placed[v] = 0;
    if (e->tid)
        e->enabled[e->tid[v]]++;
    return v;
}

/* Preemptions and delays: placing enabled v next keeps the prefix within the bound. Every prefix
 * within the bound completes within it (preemptions: run the current thread while it is
 * runnable, switching away from a thread that is not is free; delays: follow the scheduler's
 * own picks, which cost none), so the search never ends a branch without a schedule. */
static bool bound_ok(const hf_enum *e, uint32_t v)
{
    return (uint64_t)e->pre[e->depth] + cost_of(e, v) <= e->K; /* (64 bits: no wrap past K) */
}

/* Traces. Events a and b are dependent when they are ordered or conflict; a trace is the set of
 * linear extensions that order every dependent pair alike (comparable pairs are ordered alike
 * by every linear extension, so this is the same as ordering every conflicting pair alike), and
 * it is also the set of words reached from any member by swapping adjacent independent events.
 * Each trace is given by its lexicographically least member (by event id).
 *
 * Criterion (Anisimov and Knuth, "Inhomogeneous sorting", 1979). A word w is least in its trace
 * iff it has no factor b u a with a < b and a independent of b and of every event of u.
 * Proof. If there is one, a commutes left past u and b, giving an equivalent word that is
 * smaller at b's position. Conversely, if w' ~ w and w' < w, let x be their longest common
 * prefix, w = x c z, w' = x a z'; c z ~ a z' (traces cancel on the left), a < c, and since a
 * comes first in a z', no event before a in c z is dependent on a (dependent pairs keep their
 * order across a trace): c z = c u a y with a independent of c and of u, a factor as stated.
 *
 * So a prefix x may be followed by a when every event after the last event of x dependent on a
 * is smaller than a (otherwise a is "asleep" until some later dependent event). That alone can
 * lead into prefixes no linear extension completes (x = 2 over independent minimal events 1 and
 * 2: event 1 is asleep forever). Completion test. x extends to a least member iff the remaining
 * events R have a linear extension y of the order they induce in which every enabled event of R
 * asleep after x comes after some event of R it conflicts with. (=>) In the least member x y of
 * its trace, an asleep enabled a must be preceded in y by an event dependent on it, else x's
 * events after its last dependent one, all independent of a and one above a, with the events of
 * y before a, would form a forbidden factor; being enabled it has no predecessor in R, so that
 * event conflicts with it. Events of R that are not enabled, or not asleep, impose nothing on
 * the factors that start in x. (<=) Orient every conflict of R as y does and every conflict
 * between x and R from x: the trace this orientation fixes has a least member, found greedily by
 * always taking the least event with no dependent event left before it; it takes x first (x has
 * no forbidden factor, and an event of R is available during x only if every dependent event
 * before it in the orientation is in x, which for an asleep event the orientation forbids, and
 * for one awake means every event of x after its last dependent one is smaller), so x is a
 * prefix of a least member. The test is greedy: place any event of R that is enabled and either
 * not asleep or already woken by a placed conflicting event; placing more never hurts, so the
 * greedy order gets stuck iff no such y exists. */
static bool dependent(const hf_poset *p, uint32_t c, uint32_t a)
{
    return hf_i_less(p, c, a) || hf_i_less(p, a, c) || hf_i_conflict(p, c, a);
}

/* Whether enabled, unplaced a is asleep after the prefix: some event after the prefix's last
 * event dependent on a is larger than a. */
static bool asleep(hf_enum *e, uint32_t a)
{
    for (uint32_t i = e->depth; i-- > 0;) {
        uint32_t c = e->seq[i];
        e->work++;
        if (dependent(e->p, c, a))
            return false;
        if (c > a)
            return true;
    }
    return false;
}

/* The completion test above, for the current prefix. */
static bool completes(hf_enum *e)
{
    const hf_poset *p = e->p;
    uint32_t n = e->n, asleep_count = 0, head = 0, tail = 0, left = n - e->depth;
    for (uint32_t v = 0; v < n; v++) {
        e->sleep[v] = 0;
        if (e->placed[v])
            continue;
        e->indeg2[v] = e->indeg[v];
        if (e->indeg[v] == 0) {
            if (asleep(e, v)) {
                e->sleep[v] = 1;
                asleep_count++;
            } else {
                e->queue[tail++] = v;
            }
        }
    }
    if (asleep_count == 0)
        return true;
    while (head < tail) {
        uint32_t d = e->queue[head++];
        left--;
        for (uint32_t a = 0; a < n && asleep_count > 0; a++)
            if (e->sleep[a] == 1 && hf_i_conflict(p, d, a)) {
                e->sleep[a] = 2;
                asleep_count--;
                e->queue[tail++] = a;
            }
        for (size_t i = p->succ_off[d]; i < p->succ_off[d + 1]; i++)
            if (--e->indeg2[p->succ[i]] == 0)
                e->queue[tail++] = p->succ[i];
        e->work += n;
    }
    return left == 0;
}

static bool trace_ok(hf_enum *e, uint32_t v)
{
    if (!e->commuting)
        return true; /* every two events are dependent: nothing is ever asleep */
    if (asleep(e, v))
        return false;
    place(e, v);
    bool ok = completes(e);
    unplace(e);
    return ok;
}

/* The least event >= from that may extend the current prefix, or NONE. */
static uint32_t candidate(hf_enum *e, uint32_t from)
{
    if (e->mode == HF_ENUM_DELAYS)
        delay_costs(e);
    for (uint32_t v = from; v < e->n; v++) {
        e->work++;
        if (e->placed[v] || e->indeg[v] != 0)
            continue;
        if (e->mode != HF_ENUM_TRACES ? bound_ok(e, v) : trace_ok(e, v))
            return v;
    }
    return NONE;
}

/* From a complete schedule (or, first, the empty prefix) to the next one in lexicographic
 * order of the schedules the mode selects. */
static bool dfs_advance(hf_enum *e, bool first)
{
    uint32_t from = 0;
    if (!first) {
        if (e->depth == 0)
            return false;
        from = unplace(e) + 1;
    }
    for (;;) {
        uint32_t v = candidate(e, from);
        if (v == NONE) {
            e->dead_ends += from == 0;
            if (e->depth == 0)
                return false;
            from = unplace(e) + 1;
            continue;
        }
        place(e, v);
        from = 0;
        if (e->depth == e->n)
            return true;
    }
}

/* ---------------------------------------------------------------------------------------- */
/* Stepping                                                                                  */

static bool advance(hf_enum *e)
{
    bool first = e->run == RUN_FRESH;
    e->run = RUN_GOING;
    if (e->n == 0)
        return first;
    if (e->mode == HF_ENUM_ALL)
        return first || all_advance(e);
    return dfs_advance(e, first);
}

hf_enum_step hf_enum_next(hf_enum *e, uint32_t *schedule)
{
    if (!e || (!schedule && e->n > 0))
        return HF_ENUM_INVALID;
    if (e->run == RUN_DONE)
        return HF_ENUM_DONE;
    if (e->run == RUN_LIMIT)
        return HF_ENUM_LIMIT;
    if (!advance(e)) {
        e->run = RUN_DONE;
        return HF_ENUM_DONE;
    }
    if (e->limit > 0 && e->given >= e->limit) {
        e->run = RUN_LIMIT;
        return HF_ENUM_LIMIT;
    }
    if (e->mode == HF_ENUM_ALL)
        for (uint32_t i = 0; i < e->n; i++)
            schedule[i] = e->p->topo[e->a[i + 1] - 1];
    else if (e->n > 0)
        memcpy(schedule, e->seq, (size_t)e->n * sizeof *schedule);
    e->given++;
    return HF_ENUM_SCHEDULE;
}

hf_status hf_enum_run(const hf_poset *p, const hf_enum_options *o, hf_sink sink, uint64_t *given,
                      bool *more, hf_error *err)
{
    if (given)
        *given = 0;
    if (more)
        *more = false;
    if (!sink.put)
        return hf_i_fail(err, HF_EINVAL, 0, 0, "invalid argument");
    hf_enum *e = NULL;
    hf_status st = hf_enum_new(p, o, &e, err);
    if (st)
        return st;
    uint32_t *buf = hf_i_alloc_array(p->ctx, p->n ? p->n : 1, sizeof *buf);
    if (!buf) {
        hf_enum_free(e);
        return hf_i_fail(err, HF_ENOMEM, 0, 0, "out of memory starting an enumeration");
    }
    hf_enum_step step;
    uint64_t reported = 0;
    while ((step = hf_enum_next(e, buf)) == HF_ENUM_SCHEDULE) {
        st = sink.put(sink.user, buf, p->n);
        if (st) {
            hf_i_fail(err, st, 0, 0, "the schedule sink stopped the enumeration: %s",
                      hf_strerror(st));
            break;
        }
        if (given)
            *given = e->given;
        /* the schedules given, every 2^16 steps of the search (under a millisecond) */
        if (e->work >> 16 != reported) {
            reported = e->work >> 16;
            if ((st = hf_i_progress(p->ctx, "enum", e->given, e->limit, err)))
                break;
        }
    }
    if (!st && more)
        *more = step == HF_ENUM_LIMIT;
    hf_i_free(p->ctx, buf);
    hf_enum_free(e);
    return st;
}

bool hf_i_enum_advance(hf_enum *e) { return advance(e); }
