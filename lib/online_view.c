/* Online sessions seen from outside: strategy names, the runs and the union forest, its names
 * and order, and the simulation of a known forest (include/hitfam/online.h). */
#include <string.h>

#include "online_i.h"

/* ---- names ---- */

static const struct {
    hf_online_strategy s;
    const char *name;
} strategy_names[] = {{HF_ONLINE_AUTO, "auto"},
                      {HF_ONLINE_DFS, "dfs"},
                      {HF_ONLINE_DOUBLETREE, "doubletree"},
                      {HF_ONLINE_LEARN, "learn"}};

const char *hf_online_strategy_name(hf_online_strategy s)
{
    for (size_t i = 0; i < sizeof strategy_names / sizeof strategy_names[0]; i++)
        if (strategy_names[i].s == s)
            return strategy_names[i].name;
    return NULL;
}

hf_status hf_online_strategy_from_name(const char *name, hf_online_strategy *s)
{
    if (!name || !s)
        return HF_EINVAL;
    for (size_t i = 0; i < sizeof strategy_names / sizeof strategy_names[0]; i++)
        if (strcmp(strategy_names[i].name, name) == 0) {
            *s = strategy_names[i].s;
            return HF_OK;
        }
    return HF_ENOTFOUND;
}

void hf_online_options_init(hf_online_options *o)
{
    if (!o)
        return;
    memset(o, 0, sizeof *o);
    o->d = 2;
    o->strategy = HF_ONLINE_AUTO;
    o->learn_method = HF_METHOD_AUTO;
    o->max_runs = 100000;
}

hf_online_strategy hf_online_strategy_for(unsigned d)
{
    if (d == 0 || d > 4)
        return HF_ONLINE_AUTO;
    return d <= 2 ? HF_ONLINE_DFS : d == 3 ? HF_ONLINE_DOUBLETREE : HF_ONLINE_LEARN;
}
/* ---- what the session saw ---- */

size_t hf_online_runs(const hf_online *s) { return s ? s->runs : 0; }

const uint32_t *hf_online_schedule(const hf_online *s, size_t run, uint32_t *len)
{
    if (len)
        *len = 0;
    if (!s || run >= s->runs)
        return NULL;
    if (len)
        *len = (uint32_t)(s->run_off[run + 1] - s->run_off[run]);
    return s->sched + s->run_off[run];
}

uint32_t hf_online_run_events(const hf_online *s) { return s ? s->n_ev : 0; }

uint32_t hf_online_event_node(const hf_online *s, uint32_t event)
{
    return s && event < s->n_ev ? s->ev[event].node : NONE;
}

uint64_t hf_online_event_user(const hf_online *s, uint32_t event)
{
    return s && event < s->n_ev ? hf_online_rec_user(&s->ev[event]) : 0;
}

uint32_t hf_online_nodes(const hf_online *s) { return s ? s->n_nodes : 0; }

uint32_t hf_online_node_parent(const hf_online *s, uint32_t node)
{
    return s && node < s->n_nodes ? s->nodes[node].parent : NONE;
}

const char *hf_online_node_label(const hf_online *s, uint32_t node)
{
    if (!s || node >= s->n_nodes || (s->nodes[node].label & ~OVER) == NOLABEL)
        return NULL;
    return hf_i_strtab_str(&s->lab, s->nodes[node].label & ~OVER);
}

/* One step of a node's name, written at buf[pos..] within cap - 1 bytes; returns its length. */
static size_t name_step(const hf_online *s, uint32_t node, char *buf, size_t cap, size_t pos)
{
    size_t len = 0;
    const unode *u = &s->nodes[node];
#define PUT(ch)                                                                                    \
    do {                                                                                           \
        if (buf && pos + len + 1 < cap)                                                            \
            buf[pos + len] = (ch);                                                                 \
        len++;                                                                                     \
    } while (0)
    uint32_t lid = u->label & ~OVER;
    if (lid != NOLABEL)
        for (const char *c = hf_i_strtab_str(&s->lab, lid); *c; c++) {
            if (*c == '\\' || *c == '/' || *c == '#')
                PUT('\\');
            PUT(*c);
        }
    uint32_t rank = hf_i_online_rank(s, node);
    if (lid == NOLABEL || rank > 0) {
        char num[16];
        int k = snprintf(num, sizeof num, "#%" PRIu32, rank);
        for (int i = 0; i < k; i++)
            PUT(num[i]);
    }
#undef PUT
    return len;
}

size_t hf_online_node_name(const hf_online *s, uint32_t node, char *buf, size_t cap)
{
    if (buf && cap > 0)
        buf[0] = '\0';
    if (!s || node >= s->n_nodes)
        return 0;
    size_t total = 0;
    for (uint32_t v = node; v != NONE; v = s->nodes[v].parent)
        total += name_step(s, v, NULL, 0, 0) + (s->nodes[v].parent != NONE);
    /* write from the end: each step after the separator that precedes it */
    size_t end = total;
    for (uint32_t v = node; v != NONE; v = s->nodes[v].parent) {
        size_t len = name_step(s, v, NULL, 0, 0);
        end -= len;
        name_step(s, v, buf, cap, end);
        if (s->nodes[v].parent != NONE) {
            end--;
            if (buf && end + 1 < cap)
                buf[end] = '/';
        }
    }
    if (buf && cap > 0)
        buf[total < cap ? total : cap - 1] = '\0';
    return total;
}

hf_status hf_online_poset(const hf_online *s, hf_poset **out, hf_error *err)
{
    if (!s || !out)
        return hf_i_fail(err, HF_EINVAL, 0, 0, "no session or no place to store the order");
    *out = NULL;
    hf_poset_builder *b = NULL;
    char *buf = NULL;
    size_t cap = 0;
    hf_status st = hf_poset_builder_new(s->ctx, &b);
    for (uint32_t v = 0; v < s->n_nodes && !st; v++) {
        size_t need = hf_online_node_name(s, v, NULL, 0) + 1;
        if (need > HF_MAX_NAME + 1) {
            st = hf_i_fail(err, HF_ETOOLARGE, 0, 0,
                           "the name of union event %" PRIu32 " is longer than %u bytes", v,
                           HF_MAX_NAME);
            break;
        }
        if (HF_I_GROW(s->ctx, buf, &cap, need)) {
            st = HF_ENOMEM;
            break;
        }
        hf_online_node_name(s, v, buf, cap);
        st = hf_poset_builder_add_event(b, buf, NULL);
    }
    for (uint32_t v = 0; v < s->n_nodes && !st; v++)
        if (s->nodes[v].parent != NONE)
            st = hf_poset_builder_add_order(b, s->nodes[v].parent, v);
    hf_i_free(s->ctx, buf);
    if (!st)
        st = hf_poset_builder_finish(b, out, err);
    else if (st != HF_ETOOLARGE)
        hf_i_fail(err, st, 0, 0, "%s", hf_strerror(st));
    hf_poset_builder_free(b);
    return st;
}

/* ---- simulation on a known forest ---- */

hf_status hf_online_simulate(const hf_poset *p, const hf_online_options *o, hf_sink sink,
                             hf_online_sim_result *res, hf_error *err)
{
    hf_online_sim_result dummy;
    hf_online_sim_result *r = res ? res : &dummy;
    memset(r, 0, sizeof *r);
    if (!p || !o || !sink.put)
        return hf_i_fail(err, HF_EINVAL, 0, 0, "no order, options or sink");
    if (!(hf_poset_shape(p) & HF_SHAPE_FOREST))
        return hf_i_fail(err, HF_EUNSUPPORTED, 0, 0,
                         "online scheduling needs a forest: some event has two predecessors, "
                         "and an online run reveals an event when its one parent runs");
    hf_ctx *ctx = hf_poset_ctx(p);
    hf_online *s = NULL;
    hf_status st = hf_online_new(ctx, o, &s, err);
    if (st)
        return st;
    r->strategy = s->strategy;
    uint32_t n = hf_poset_size(p);
    uint32_t *map = hf_i_alloc_array(ctx, (size_t)n + 1, sizeof *map);
    uint32_t *order = hf_i_alloc_array(ctx, (size_t)n + 1, sizeof *order);
    if (!map || !order) {
        st = hf_i_fail(err, HF_ENOMEM, 0, 0, "out of memory");
        goto out;
    }
    for (;;) {
        if ((st = hf_online_begin_run(s, err)) != HF_OK)
            goto out;
        uint32_t e, k = 0;
        for (uint32_t v = 0; v < n && !st; v++)
            if (hf_poset_parent(p, v) == HF_NO_EVENT &&
                (st = hf_online_post(s, HF_NO_EVENT, hf_poset_name(p, v), &e, err)) == HF_OK)
                map[e] = v;
        while (!st && hf_online_pending(s) > 0) {
            if ((st = hf_online_next(s, &e, err)) != HF_OK)
                break;
            uint32_t v = map[e], cnt;
            order[k++] = v;
            const uint32_t *succ = hf_poset_hasse_succ(p, v, &cnt);
            for (uint32_t i = 0; i < cnt && !st; i++) {
                uint32_t ce;
                if ((st = hf_online_post(s, e, hf_poset_name(p, succ[i]), &ce, err)) == HF_OK)
                    map[ce] = succ[i];
            }
        }
        if (st)
            goto out;
        hf_online_run_result rr;
        if ((st = hf_online_end_run(s, &rr, err)) != HF_OK)
            goto out;
        r->runs++;
        r->bound = rr.bound;
        if (rr.more && n > 0 && rr.bound > HF_GEN_DEFAULT_MAX_NAMES / n) {
            st = hf_i_fail(err, HF_ETOOLARGE, 0, 0,
                           "strategy %s would play %" PRIu64 " runs of %" PRIu32
                           " events, more than %" PRIu64 " names in all",
                           hf_online_strategy_name(s->strategy), rr.bound, n,
                           (uint64_t)HF_GEN_DEFAULT_MAX_NAMES);
            goto out;
        }
        if ((st = sink.put(sink.user, order, n)) != HF_OK) {
            hf_i_fail(err, st, 0, 0, "the sink stopped after %" PRIu64 " schedules: %s",
                      r->runs - 1, hf_strerror(st));
            goto out;
        }
        if (!rr.more)
            break;
    }
out:
    hf_i_free(ctx, map);
    hf_i_free(ctx, order);
    hf_online_free(s);
    return st;
}
