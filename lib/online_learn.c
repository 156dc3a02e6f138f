/* Strategy learn of online sessions: the offline family of the union forest seen so far, the
 * coverage of the runs, and repair runs for programs that change with the schedule
 * (docs/online.md). */
#include <string.h>

#include "online_i.h"

void hf_i_online_learn_drop(hf_online *s)
{
    hf_poset_free(s->u);
    hf_family_free(s->fam);
    hf_i_coverage_free(s->cov);
    hf_i_free(s->ctx, s->tried);
    hf_i_free(s->ctx, s->plan_pos);
    s->u = NULL;
    s->fam = NULL;
    s->cov = NULL;
    s->tried = NULL;
    s->plan_pos = NULL;
    s->plan_n = 0;
    s->tuples = 0;
    s->plan_left = 0;
    s->next_target = SIZE_MAX;
    s->repair = false;
}

/* ---- learn: the offline family of the union forest and its coverage ---- */

/* The union forest as a poset with short names, its offline family, and the coverage of every
 * run so far. On failure everything is dropped. */
static hf_status learn_rebuild(hf_online *s, hf_error *err)
{
    hf_i_online_learn_drop(s);
    uint32_t n = s->n_nodes;
    if (n == 0)
        return HF_OK;
    hf_poset_builder *b = NULL;
    hf_status st = hf_poset_builder_new(s->ctx, &b);
    char name[24];
    for (uint32_t v = 0; v < n && !st; v++) {
        snprintf(name, sizeof name, "n%" PRIu32, v);
        st = hf_poset_builder_add_event(b, name, NULL);
    }
    for (uint32_t v = 0; v < n && !st; v++)
        if (s->nodes[v].parent != NONE)
            st = hf_poset_builder_add_order(b, s->nodes[v].parent, v);
    if (!st)
        st = hf_poset_builder_finish(b, &s->u, err);
    else
        hf_i_fail(err, st, 0, 0, "%s", hf_strerror(st));
    hf_poset_builder_free(b);
    if (st)
        goto fail;
    unsigned d = s->d < n ? s->d : n;
    if ((st = hf_i_coverage_check_size(s->u, d, NULL, 0, err)) != HF_OK)
        goto fail;
    if ((st = hf_family_new(s->ctx, n, &s->fam)) != HF_OK) {
        hf_i_fail(err, st, 0, 0, "%s", hf_strerror(st));
        goto fail;
    }
    hf_gen_options opt;
    hf_gen_options_init(&opt);
    opt.d = d;
    /* a union forest of fewer than d events has its n-tuples planned by auto: the chosen method
     * may build d-hitting families only for d >= 3 (simple, doubletree, pattern) */
    opt.method = d < s->d ? HF_METHOD_AUTO : s->learn_method;
    if ((st = hf_generate(s->u, &opt, hf_family_sink(s->fam), NULL, err)) != HF_OK)
        goto fail;
    if ((st = hf_i_coverage_new(s->u, d, NULL, 0, &s->cov, err)) != HF_OK)
        goto fail;
    s->tuples = hf_i_coverage_remaining(s->cov);
    s->tried = hf_i_calloc(s->ctx, hf_family_size(s->fam) + 1, 1);
    s->plan_pos = hf_i_alloc_array(s->ctx, n, sizeof *s->plan_pos);
    if (!s->tried || !s->plan_pos) {
        st = hf_i_fail(err, HF_ENOMEM, 0, 0, "out of memory");
        goto fail;
    }
    s->plan_n = n;
    for (size_t r = 0; r < s->runs; r++)
        hf_i_coverage_add_partial(s->cov, s->sched + s->run_off[r],
                                  (uint32_t)(s->run_off[r + 1] - s->run_off[r]));
    return HF_OK;
fail:
    hf_i_online_learn_drop(s);
    return st;
}

/* The tuples the repair runs track (hit or not) are taken out of the coverage again after it was
 * rebuilt from the runs; those that were set aside because their events never ran in one run
 * are dropped first (the runs now counted may bring them together). */
static void learn_set_aside(hf_online *s)
{
    size_t k = 0;
    for (size_t i = 0; i < s->n_aims; i++)
        if (s->aims[i].status != AIM_APART)
            s->aims[k++] = s->aims[i];
    if (s->lead >= k)
        s->lead = SIZE_MAX;
    s->n_aims = k;
    unsigned d = hf_i_coverage_d(s->cov);
    for (size_t i = 0; i < s->n_aims; i++) {
        uint32_t loc[4];
        bool in = s->aims[i].len == d;
        for (unsigned j = 0; j < d && in; j++) {
            uint32_t v = s->aims[i].t[j];
            loc[j] = v < s->plan_n ? hf_i_coverage_local(s->cov, v) : NONE;
            in = loc[j] != NONE;
        }
        if (in && hf_i_coverage_open(s->cov, loc))
            hf_i_coverage_add_partial(s->cov, s->aims[i].t, d);
    }
}

/* Tracked tuples a repair run is checked against besides its leader, at most: each costs a plan
 * and a replay of the run. */
#define LEARN_WATCH_MAX 64u

/* The scratch arrays of s->mark, n_nodes + 1 entries each: positions + 1 of the nodes in a run
 * (mark_run), in the base run (repair_learn), constraint counts (repair_plan), keys by position
 * (plays_as_planned). */
static uint32_t *scratch(hf_online *s, unsigned k)
{
    return s->mark + k * ((size_t)s->n_nodes + 1);
}

/* mark[v] = the position + 1 of node v in the run, 0 when it did not run. */
static void mark_run(hf_online *s, size_t run)
{
    memset(s->mark, 0, ((size_t)s->n_nodes + 1) * sizeof *s->mark);
    for (size_t i = s->run_off[run]; i < s->run_off[run + 1]; i++)
        s->mark[s->sched[i]] = (uint32_t)(i - s->run_off[run]) + 1;
}

/* Whether the marked run ran the d nodes of t in that order. */
static bool marked_hits(const hf_online *s, const uint32_t *t, unsigned d)
{
    uint32_t prev = 0;
    for (unsigned j = 0; j < d; j++) {
        if (s->mark[t[j]] <= prev)
            return false;
        prev = s->mark[t[j]];
    }
    return true;
}

/* Whether the marked run ran every node of t. */
static bool marked_all(const hf_online *s, const uint32_t *t, unsigned d)
{
    for (unsigned j = 0; j < d; j++)
        if (!s->mark[t[j]])
            return false;
    return true;
}

/* A repair plan for tuple t (d nodes) from run `run`, where all of t ran: that run's own order,
 * changed only as much as t's order and the learnt edges e0 .. e1 - 1 ask. At each step it places
 * the event that ran first in that run among those whose parent, whose predecessor in t and whose
 * tails of learnt edges are placed. Nodes of other runs get no position (they are placed as new
 * events are). False when t's order, the edges and the forest form a cycle. O(len^2 + len *
 * edges) for a run of len events. */
static bool repair_plan(hf_online *s, size_t run, const uint32_t *t, unsigned d, size_t e0,
                        size_t e1)
{
    uint32_t n = s->plan_n, len = (uint32_t)(s->run_off[run + 1] - s->run_off[run]);
    const uint32_t *row = s->sched + s->run_off[run];
    uint32_t *cnt = scratch(s, 2); /* constraints not met yet, by node */
    for (uint32_t v = 0; v < n; v++) {
        s->plan_pos[v] = NONE;
        cnt[v] = 0;
    }
    for (uint32_t i = 0; i < len; i++)
        cnt[row[i]] += s->nodes[row[i]].parent != NONE;
    for (unsigned j = 1; j < d; j++)
        cnt[t[j]]++;
    for (size_t e = e0; e < e1; e++)
        cnt[s->learnt[e][1]]++;
    for (uint32_t k = 0; k < len; k++) {
        uint32_t pick = NONE;
        for (uint32_t i = 0; i < len && pick == NONE; i++)
            if (s->plan_pos[row[i]] == NONE && cnt[row[i]] == 0)
                pick = row[i];
        if (pick == NONE)
            return false;
        s->plan_pos[pick] = k;
        for (uint32_t i = 0; i < len; i++)
            if (s->nodes[row[i]].parent == pick)
                cnt[row[i]]--;
        for (unsigned j = 1; j < d; j++)
            if (t[j - 1] == pick)
                cnt[t[j]]--;
        for (size_t e = e0; e < e1; e++)
            if (s->learnt[e][0] == pick)
                cnt[s->learnt[e][1]]--;
    }
    return true;
}

/* Where the last run (marked) missed tuple t: the latest position of a handler g that ran but did
 * not post the highest ancestor f of an event of t that did not occur. NONE when t was not missed
 * that way (it was hit, or a root of t did not occur). */
static uint32_t miss_point(const hf_online *s, const uint32_t *t, unsigned d)
{
    uint32_t upto = NONE;
    for (unsigned j = 0; j < d; j++) {
        uint32_t f = t[j];
        if (s->mark[f])
            continue;
        while (s->nodes[f].parent != NONE && !s->mark[s->nodes[f].parent])
            f = s->nodes[f].parent;
        uint32_t g = s->nodes[f].parent;
        if (g == NONE)
            return NONE;
        if (upto == NONE || s->mark[g] - 1 > upto)
            upto = s->mark[g] - 1;
    }
    return upto;
}

/* Whether the last run (marked), up to and including position `upto`, is what a run following
 * plan_pos would have played: at each of those steps, no event then pending has a smaller key.
 * Keys are those a run following plan_pos gives (2 pos for a planned node, its parent's key | 1
 * otherwise, 2 plan_n + 1 for a new root). Equal keys are those of unplanned events under one
 * nearest planned ancestor, equal in every plan made from the same base run, so the tie (newest
 * first) was broken as that plan would break it. Then the program, which sees only what ran
 * before, behaved in those steps as it would have under plan_pos. O(upto * len). */
static bool plays_as_planned(hf_online *s, uint32_t upto)
{
    size_t last = s->runs - 1;
    const uint32_t *row = s->sched + s->run_off[last];
    uint32_t len = (uint32_t)(s->run_off[last + 1] - s->run_off[last]);
    uint32_t *key = scratch(s, 3);
    for (uint32_t i = 0; i < len; i++) {
        uint32_t v = row[i], p = s->nodes[v].parent;
        if (v < s->plan_n && s->plan_pos[v] != NONE)
            key[i] = 2 * s->plan_pos[v];
        else if (p != NONE)
            key[i] = key[s->mark[p] - 1] | 1;
        else
            key[i] = 2 * s->plan_n + 1;
    }
    for (uint32_t i = 0; i <= upto && i < len; i++)
        for (uint32_t j = i + 1; j < len; j++) {
            uint32_t p = s->nodes[row[j]].parent;
            bool pending = p == NONE || s->mark[p] - 1 < i;
            if (pending && key[j] < key[i])
                return false;
        }
    return true;
}

/* Learn from a run (the last, marked) that missed tuple t, planned from base run `base`: some
 * event of t did not occur. For each such event, its highest ancestor f that did not occur was
 * not posted by f's parent g, which did run, whereas g posted f in the base run: what ran before g
 * differs. Every event that ran before g in the base run and not before it now gets an edge to g,
 * and every one that ran after g in the base run and before it now an edge from g: the next plan
 * keeps g's past as in the base run. What is learnt depends only on the run up to g. The edges
 * are appended to s->learnt. */
static hf_status repair_learn(hf_online *s, size_t base, const uint32_t *t, unsigned d,
                              hf_error *err)
{
    uint32_t n = s->n_nodes;
    uint32_t *now = s->mark, *then = scratch(s, 1);
    memset(then, 0, ((size_t)n + 1) * sizeof *then);
    for (size_t i = s->run_off[base]; i < s->run_off[base + 1]; i++)
        then[s->sched[i]] = (uint32_t)(i - s->run_off[base]) + 1;
    for (unsigned j = 0; j < d; j++) {
        uint32_t f = t[j];
        if (now[f])
            continue;
        while (s->nodes[f].parent != NONE && !now[s->nodes[f].parent])
            f = s->nodes[f].parent;
        uint32_t g = s->nodes[f].parent;
        if (g == NONE || !then[g])
            continue;
        for (uint32_t y = 0; y < n; y++) {
            if (y == g || !then[y])
                continue;
            bool before = then[y] < then[g], before_now = now[y] && now[y] < now[g];
            if (before == before_now)
                continue;
            if (HF_I_GROW(s->ctx, s->learnt, &s->learnt_cap, s->n_learnt + 1))
                return hf_i_fail(err, HF_ENOMEM, 0, 0, "out of memory");
            s->learnt[s->n_learnt][0] = before ? y : g;
            s->learnt[s->n_learnt++][1] = before ? g : y;
        }
    }
    return HF_OK;
}

/* Whether run `run` ran every node of t. O(len * d). */
static bool run_has_all(const hf_online *s, size_t run, const uint32_t *t, unsigned d)
{
    unsigned found = 0;
    for (size_t i = s->run_off[run]; i < s->run_off[run + 1]; i++)
        for (unsigned j = 0; j < d; j++)
            found += s->sched[i] == t[j];
    return found == d;
}

/* After a repair run (the last) aimed at the leader from the base run. The leader counts a miss
 * and learns from it. The run also serves other tracked open tuples (at most LEARN_WATCH_MAX, in
 * order) whose events all ran in the base, and for which the base is the latest such run before
 * this one, as it would be if they led: when the run missed such a tuple and, up to the handler
 * that failed to post its event, played as the tuple's own first plan from the base (no learnt
 * edges) would have, the miss is the one the tuple's own first repair run would have had. It
 * learns from it as a leader would, is set aside when its plan with those edges has a cycle,
 * and otherwise forgets them (the run counts no attempt for it). O(watched * (plan + len * runs)).
 */
static hf_status repair_after(hf_online *s, hf_error *err)
{
    struct hf_i_aim *a = &s->aims[s->lead];
    unsigned d = a->len;
    size_t base = s->lead_base;
    mark_run(s, s->runs - 1);
    unsigned watched = 0;
    for (size_t i = 0; i < s->n_aims && watched < LEARN_WATCH_MAX; i++) {
        struct hf_i_aim *b = &s->aims[i];
        if (i == s->lead || b->status != AIM_OPEN || b->len != d || !run_has_all(s, base, b->t, d))
            continue;
        watched++;
        uint32_t upto = miss_point(s, b->t, d);
        if (upto == NONE || !repair_plan(s, base, b->t, d, 0, 0) || !plays_as_planned(s, upto))
            continue;
        bool latest = true;
        for (size_t k = base + 1; k + 1 < s->runs && latest; k++)
            latest = !run_has_all(s, k, b->t, d);
        if (!latest)
            continue;
        size_t e0 = s->n_learnt;
        hf_status st = repair_learn(s, base, b->t, d, err);
        if (!st && !repair_plan(s, base, b->t, d, e0, s->n_learnt))
            b->status = AIM_ASIDE;
        s->n_learnt = e0;
        if (st)
            return st;
    }
    if (a->status != AIM_OPEN)
        return HF_OK;
    if (++a->tries >= HF_ONLINE_LEARN_REPAIRS) {
        a->status = AIM_ASIDE;
        s->lead = SIZE_MAX;
        return HF_OK;
    }
    return repair_learn(s, base, a->t, d, err);
}

/* Choose the next repair run, when no schedule of the offline family hits an open tuple. The
 * leader is the first tracked tuple still open (open tuples are moved from the coverage into the
 * tracked list HF_ONLINE_LEARN_BATCH at a time). Its base is the latest run where all its events
 * ran; its plan is repair_plan's with the edges learnt from its earlier misses (repair_learn),
 * and the run also serves other open tuples (repair_after). When that plan has a cycle, the edges
 * are dropped and the next-latest such run becomes the base; with no such run left the tuple is set
 * aside (apart when no run has all its events). Sets s->repair when a run is planned. */
static hf_status repair_choose(hf_online *s, hf_error *err)
{
    unsigned d = hf_i_coverage_d(s->cov);
    for (;;) {
        size_t lead = SIZE_MAX;
        for (size_t i = 0; i < s->n_aims && lead == SIZE_MAX; i++)
            if (s->aims[i].status == AIM_OPEN && s->aims[i].len == d)
                lead = i;
        if (lead == SIZE_MAX) {
            uint32_t t[4] = {NONE, NONE, NONE, NONE};
            size_t moved = 0;
            while (moved < HF_ONLINE_LEARN_BATCH && hf_i_coverage_first(s->cov, t)) {
                if (HF_I_GROW(s->ctx, s->aims, &s->aims_cap, s->n_aims + 1))
                    return hf_i_fail(err, HF_ENOMEM, 0, 0, "out of memory");
                struct hf_i_aim *a = &s->aims[s->n_aims++];
                memset(a, 0, sizeof *a);
                a->len = d;
                memcpy(a->t, t, sizeof t);
                a->status = AIM_OPEN;
                hf_i_coverage_add_partial(s->cov, t, d);
                moved++;
            }
            if (moved == 0)
                return HF_OK;
            continue;
        }
        struct hf_i_aim *a = &s->aims[lead];
        if (s->lead != lead || s->lead_base >= s->runs) { /* a new leader */
            s->lead = lead;
            s->lead_base = s->runs;
            s->n_learnt = 0;
        }
        while (s->lead_base != SIZE_MAX) {
            if (s->lead_base < s->runs && s->n_learnt > 0 &&
                !repair_plan(s, s->lead_base, a->t, d, 0, s->n_learnt)) {
                s->lead_base = SIZE_MAX; /* what the misses taught contradicts t */
                break;
            }
            if (s->lead_base == s->runs || !repair_plan(s, s->lead_base, a->t, d, 0, s->n_learnt)) {
                /* the next-latest run where all of t ran, without learnt edges */
                size_t base = SIZE_MAX;
                for (size_t k = s->lead_base; k-- > 0 && base == SIZE_MAX;) {
                    mark_run(s, k);
                    if (marked_all(s, a->t, d))
                        base = k;
                }
                if (base == SIZE_MAX && s->lead_base == s->runs)
                    a->status = AIM_APART;
                s->lead_base = base;
                s->n_learnt = 0;
                continue;
            }
            s->repair = true;
            return HF_OK;
        }
        if (a->status == AIM_OPEN)
            a->status = AIM_ASIDE;
        s->lead = SIZE_MAX;
    }
}

/* After a run: bring the coverage up to date and choose what the next run follows: first the
 * untried schedule of the offline family that hits the most tuples no run has hit; once none
 * hits any, repair runs aimed at the open tuples one at a time (repair_choose). */
hf_status hf_i_online_learn_end(hf_online *s, hf_online_run_result *r, bool changed, hf_error *err)
{
    if (HF_I_GROW(s->ctx, s->mark, &s->mark_cap, 4 * ((size_t)s->n_nodes + 1)))
        return hf_i_fail(err, HF_ENOMEM, 0, 0, "out of memory");
    size_t last = s->runs - 1;
    /* the tracked tuples: did the last run hit them? (a tuple set aside before counts as hit
     * then) A repair run that missed its leader counts one attempt and teaches the next plan;
     * other open tuples may learn from their misses too (repair_after). */
    mark_run(s, last);
    unsigned dd = s->d < s->plan_n ? s->d : s->plan_n;
    for (size_t i = 0; i < s->n_aims; i++)
        if (s->aims[i].status != AIM_HIT && s->aims[i].len == dd &&
            marked_hits(s, s->aims[i].t, dd))
            s->aims[i].status = AIM_HIT;
    if (s->repair && s->lead < s->n_aims) {
        hf_status st = repair_after(s, err);
        if (st) { /* the coverage is rebuilt from every run when the next run ends */
            s->repair = false;
            s->stale = true;
            return st;
        }
    }
    s->repair = false;
    bool rebuild = s->stale || !s->cov || s->n_nodes != s->plan_n;
    if (rebuild || changed) {
        size_t target = s->target;
        hf_status st = rebuild ? learn_rebuild(s, err) : HF_OK;
        if (!st && !rebuild) { /* same union, other events together: count again */
            hf_i_coverage *c = NULL;
            unsigned d = s->d < s->plan_n ? s->d : s->plan_n;
            st = hf_i_coverage_new(s->u, d, NULL, 0, &c, err);
            if (!st) {
                hf_i_coverage_free(s->cov);
                s->cov = c;
                for (size_t k = 0; k < s->runs; k++)
                    hf_i_coverage_add_partial(s->cov, s->sched + s->run_off[k],
                                              (uint32_t)(s->run_off[k + 1] - s->run_off[k]));
                if (target < hf_family_size(s->fam))
                    s->tried[target] = 1;
            }
        }
        s->stale = st != HF_OK;
        if (st) {
            hf_i_online_learn_drop(s);
            return st;
        }
        if (s->cov)
            learn_set_aside(s);
    } else {
        hf_i_coverage_add_partial(s->cov, s->sched + s->run_off[last],
                                  (uint32_t)(s->run_off[last + 1] - s->run_off[last]));
        if (s->target != SIZE_MAX && s->target < hf_family_size(s->fam))
            s->tried[s->target] = 1;
    }
    s->next_target = SIZE_MAX;
    s->plan_left = 0;
    uint64_t best = 0;
    if (s->cov && hf_i_coverage_remaining(s->cov) > 0) {
        size_t m = hf_family_size(s->fam);
        if (m <= HF_ONLINE_LEARN_GREEDY) {
            for (size_t k = 0; k < m; k++) {
                if (s->tried[k])
                    continue;
                uint64_t c = hf_i_coverage_count_new(s->cov, hf_family_schedule(s->fam, k));
                if (c > 0)
                    s->plan_left++;
                if (c > best) {
                    best = c;
                    s->next_target = k;
                }
            }
        } else {
            /* a large family: the next untried schedule, in the family's order, that hits an
             * open tuple (each schedule is counted once per growth of the union forest) */
            for (size_t k = 0; k < m; k++) {
                if (s->tried[k])
                    continue;
                if (s->next_target == SIZE_MAX) {
                    if (hf_i_coverage_count_new(s->cov, hf_family_schedule(s->fam, k)) > 0)
                        s->next_target = k;
                    else
                        s->tried[k] = 1;
                }
                if (!s->tried[k])
                    s->plan_left++;
            }
        }
    }
    if (s->next_target != SIZE_MAX) {
        const uint32_t *row = hf_family_schedule(s->fam, s->next_target);
        for (uint32_t i = 0; i < s->plan_n; i++)
            s->plan_pos[row[i]] = i;
    } else if (s->cov) {
        hf_status st = repair_choose(s, err);
        if (st) {
            s->repair = false;
            s->stale = true;
            return st;
        }
    }
    r->tuples = s->tuples;
    uint64_t open = s->cov ? hf_i_coverage_remaining(s->cov) : 0, aside = 0, left = 0;
    unsigned dnow = s->cov ? hf_i_coverage_d(s->cov) : 0;
    for (size_t i = 0; i < s->n_aims; i++) {
        if (s->aims[i].len != dnow)
            continue;
        if (s->aims[i].status == AIM_OPEN) {
            open++;
            left += HF_ONLINE_LEARN_REPAIRS - s->aims[i].tries;
        }
        aside += s->aims[i].status == AIM_APART || s->aims[i].status == AIM_ASIDE;
    }
    r->tuples_apart = aside;
    r->tuples_hit = s->tuples - open - aside;
    r->more = s->next_target != SIZE_MAX || s->repair;
    r->bound = s->runs + s->plan_left;
    if (s->repair)
        r->bound += left + HF_ONLINE_LEARN_REPAIRS * (s->cov ? hf_i_coverage_remaining(s->cov) : 0);
    return HF_OK;
}
