/* An independent model of PCT for the sampler suites: the schedule of each choice of priorities
 * and change points, enumerated with its probability (orders of at most 32 events). */
#ifndef HITFAM_TESTS_PCT_MODEL_H
#define HITFAM_TESTS_PCT_MODEL_H

#include <criterion/criterion.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "gen_chains.h"

/* PCT as docs/samplers.md defines it (a change point lowers the thread about to run before it
 * runs), written from that definition for the tests: every choice of initial priorities (k!
 * permutations) and of distinct change points (n!/(n-c)! ordered tuples) run once, each
 * schedule passed to `visit` with its probability. */
typedef struct pct_model {
    uint32_t n, k, ncp;
    const bool *lt;
    uint32_t chain[32][32], len[32];
    uint32_t prio[32];
    uint32_t cps[8];
} pct_model;

static void pct_run(const pct_model *m, uint32_t *out)
{
    uint32_t n = m->n, next[32] = {0};
    double pr[32];
    bool done[32] = {0};
    for (uint32_t t = 0; t < m->k; t++)
        pr[t] = m->prio[t];
    for (uint32_t step = 1; step <= n; step++) {
        uint32_t best = HF_NO_EVENT;
        for (int pass = 0; pass < 2; pass++) {
            best = HF_NO_EVENT;
            for (uint32_t t = 0; t < m->k; t++) {
                if (next[t] == m->len[t])
                    continue;
                uint32_t v = m->chain[t][next[t]];
                bool en = true;
                for (uint32_t u = 0; u < n && en; u++)
                    en = done[u] || !m->lt[u * n + v];
                if (en && (best == HF_NO_EVENT || pr[t] > pr[best]))
                    best = t;
            }
            cr_assert_neq(best, HF_NO_EVENT);
            /* at a change point the thread about to run is lowered first, then the choice is
             * made again */
            bool change = false;
            for (uint32_t i = 0; i < m->ncp; i++)
                if (pass == 0 && m->cps[i] == step) {
                    pr[best] = -(double)(i + 1);
                    change = true;
                }
            if (!change)
                break;
        }
        uint32_t v = m->chain[best][next[best]++];
        done[v] = true;
        out[step - 1] = v;
    }
}

typedef void (*pct_visit_fn)(void *user, const uint32_t *row, double weight);

static void pct_cps(pct_model *m, uint32_t i, double w, pct_visit_fn visit, void *user)
{
    if (i == m->ncp) {
        uint32_t row[32];
        pct_run(m, row);
        visit(user, row, w);
        return;
    }
    for (uint32_t s = 1; s <= m->n; s++) {
        bool used = false;
        for (uint32_t j = 0; j < i; j++)
            used = used || m->cps[j] == s;
        if (used)
            continue;
        m->cps[i] = s;
        pct_cps(m, i + 1, w / (double)(m->n - i), visit, user);
    }
}

static void pct_perms(pct_model *m, uint32_t i, bool *used, double w, pct_visit_fn visit,
                      void *user)
{
    if (i == m->k) {
        pct_cps(m, 0, w, visit, user);
        return;
    }
    for (uint32_t v = 0; v < m->k; v++)
        if (!used[v]) {
            used[v] = true;
            m->prio[i] = v;
            pct_perms(m, i + 1, used, w / (double)(m->k - i), visit, user);
            used[v] = false;
        }
}

static void pct_model_of(pct_model *m, const hf_i_chains *c, const bool *lt, uint32_t n, unsigned d)
{
    memset(m, 0, sizeof *m);
    m->n = n;
    m->k = c->count;
    m->lt = lt;
    m->ncp = d - 1 < n ? d - 1 : n;
    for (uint32_t t = 0; t < c->count; t++) {
        m->len[t] = c->off[t + 1] - c->off[t];
        for (uint32_t j = 0; j < m->len[t]; j++)
            m->chain[t][j] = c->ev[c->off[t] + j];
    }
}

#endif
