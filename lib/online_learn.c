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
    opt.method = s->learn_method;
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

/* The tuples aimed at by repair runs and never hit are set aside again after the coverage was
 * rebuilt from the runs. */
static void learn_set_aside(hf_online *s)
{
    unsigned d = hf_i_coverage_d(s->cov);
    for (size_t i = 0; i < s->n_attempted; i++) {
        uint32_t loc[4];
        bool in = !s->attempted[i].hit && s->attempted[i].len == d;
        for (unsigned j = 0; j < d; j++) {
            uint32_t v = s->attempted[i].t[j];
            loc[j] = v < s->plan_n ? hf_i_coverage_local(s->cov, v) : NONE;
            in = in && loc[j] != NONE;
        }
        if (in && hf_i_coverage_open(s->cov, loc))
            hf_i_coverage_add_partial(s->cov, s->attempted[i].t, d);
    }
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

/* A repair plan for the open tuple t (node ids, d of them) whose events all ran in run `run`:
 * the run's own order, changed only as much as t's order asks (at each step the event that ran
 * first in that run among those whose parent and whose predecessor in t are placed). Nodes of
 * other runs get no position (they are placed as new events are). O(n^2) for n union nodes. */
static void repair_plan(hf_online *s, size_t run, const uint32_t *t, unsigned d)
{
    uint32_t n = s->plan_n, len = (uint32_t)(s->run_off[run + 1] - s->run_off[run]);
    const uint32_t *row = s->sched + s->run_off[run];
    for (uint32_t v = 0; v < n; v++)
        s->plan_pos[v] = NONE;
    uint32_t *rank = s->mark; /* chain predecessor in t, by node: NONE or t[j-1] */
    for (uint32_t v = 0; v <= n; v++)
        rank[v] = NONE;
    for (unsigned j = 1; j < d; j++)
        rank[t[j]] = t[j - 1];
    for (uint32_t k = 0; k < len; k++) {
        uint32_t pick = NONE;
        for (uint32_t i = 0; i < len && pick == NONE; i++) {
            uint32_t v = row[i], par = s->nodes[v].parent;
            if (s->plan_pos[v] != NONE)
                continue;
            if (par != NONE && s->plan_pos[par] == NONE)
                continue;
            if (rank[v] != NONE && s->plan_pos[rank[v]] == NONE)
                continue;
            pick = v;
        }
        if (pick == NONE) /* cannot happen for an admissible tuple: the constraints are acyclic */
            break;
        s->plan_pos[pick] = k;
    }
}

/* After a run: bring the coverage up to date and choose what the next run follows: first the
 * untried schedule of the offline family that hits the most tuples no run has hit; once none
 * hits any, one open tuple at a time, by a repair plan made from a run where its events all
 * ran. */
hf_status hf_i_online_learn_end(hf_online *s, hf_online_run_result *r, bool changed, hf_error *err)
{
    if (hf_i_grow(s->ctx, (void **)&s->mark, &s->mark_cap, (size_t)s->n_nodes + 1, sizeof *s->mark))
        return hf_i_fail(err, HF_ENOMEM, 0, 0, "out of memory");
    size_t last = s->runs - 1;
    /* the tuples aimed at: did the last run hit them? */
    mark_run(s, last);
    unsigned dd = s->d < s->plan_n ? s->d : s->plan_n;
    for (size_t i = 0; i < s->n_attempted; i++)
        if (s->attempted[i].len == dd)
            s->attempted[i].hit = s->attempted[i].hit || marked_hits(s, s->attempted[i].t, dd);
    if (s->repair) {
        if (s->aim_len != dd || !marked_hits(s, s->aim, dd)) {
            if (hf_i_grow(s->ctx, (void **)&s->attempted, &s->attempted_cap, s->n_attempted + 1,
                          sizeof *s->attempted))
                return hf_i_fail(err, HF_ENOMEM, 0, 0, "out of memory");
            memcpy(s->attempted[s->n_attempted].t, s->aim, sizeof s->aim);
            s->attempted[s->n_attempted].len = s->aim_len;
            s->attempted[s->n_attempted++].hit = false;
        }
        s->repair = false;
    }
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
        s->apart = 0;
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
        unsigned d = hf_i_coverage_d(s->cov);
        uint32_t t[4];
        while (!s->repair && hf_i_coverage_first(s->cov, t)) {
            /* the latest run where all of t ran */
            size_t run = SIZE_MAX;
            for (size_t k = s->runs; k-- > 0 && run == SIZE_MAX;) {
                mark_run(s, k);
                bool all = true;
                for (unsigned j = 0; j < d && all; j++)
                    all = s->mark[t[j]] != 0;
                if (all)
                    run = k;
            }
            hf_i_coverage_add_partial(s->cov, t, d); /* aimed at now, or out of reach */
            if (run == SIZE_MAX) {
                s->apart++;
                continue;
            }
            repair_plan(s, run, t, d);
            memset(s->aim, 0xff, sizeof s->aim);
            memcpy(s->aim, t, d * sizeof *t);
            s->aim_len = d;
            s->repair = true;
        }
    }
    r->tuples = s->tuples;
    uint64_t open = s->cov ? hf_i_coverage_remaining(s->cov) : 0;
    uint64_t aside = 0;
    unsigned dnow = s->cov ? hf_i_coverage_d(s->cov) : 0;
    for (size_t i = 0; i < s->n_attempted; i++)
        aside += !s->attempted[i].hit && s->attempted[i].len == dnow;
    r->tuples_apart = s->apart + aside;
    r->tuples_hit = s->tuples - open - r->tuples_apart - (s->repair ? 1 : 0);
    r->more = s->next_target != SIZE_MAX || s->repair;
    r->bound = s->runs + s->plan_left + (s->repair ? 1 : 0);
    return HF_OK;
}
