/* Fuzz target: the enumerations of hitfam/enum.h against a model. The input draws an order of
 * 1..8 events (edges i -> j for i < j), thread and object labels, a mode (all, traces,
 * preemptions, delays), a bound K and a limit. The model lists every linear extension (in
 * lexicographic order) and selects from the definitions of hitfam/enum.h: traces by the
 * orientation of their conflicting pairs, each given by its least member; preemptions and
 * delays counted step by step. hf_enum_next must give exactly the selected schedules, each a
 * linear extension, once, in lexicographic order (but for all, whose order is Varol and
 * Rotem's), up to the limit, which it must report; hf_enum_count must give their number (or
 * refuse a small work bound with HF_ETOOLARGE, never a wrong number); hf_enum_run must agree. */
#include <stdint.h>
#include <stdio.h> /* before gmp.h, which declares its FILE functions only after it */
#include <stdlib.h>
#include <string.h>

#include <gmp.h>

#include <hitfam/enum.h>
#include <hitfam/hitfam.h>

enum { MAXN = 8, MAXE = 40320 };

typedef struct model {
    uint32_t n;
    bool lt[MAXN][MAXN]; /* the closure */
    uint32_t thread[MAXN], object[MAXN];
    bool writes[MAXN], any_object;
    uint32_t ext[MAXE][MAXN];
    size_t m;
} model;

static model M;

static void extensions(uint32_t *prefix, uint32_t depth, bool *placed)
{
    if (depth == M.n) {
        memcpy(M.ext[M.m++], prefix, M.n * sizeof *prefix);
        return;
    }
    for (uint32_t v = 0; v < M.n; v++) {
        if (placed[v])
            continue;
        bool ok = true;
        for (uint32_t u = 0; u < M.n && ok; u++)
            ok = !M.lt[u][v] || placed[u];
        if (!ok)
            continue;
        placed[v] = true;
        prefix[depth] = v;
        extensions(prefix, depth + 1, placed);
        placed[v] = false;
    }
}

static bool conflict(uint32_t a, uint32_t b)
{
    if (a == b || M.lt[a][b] || M.lt[b][a])
        return false;
    if (!M.any_object)
        return true;
    return M.object[a] != UINT32_MAX && M.object[a] == M.object[b] && (M.writes[a] || M.writes[b]);
}

/* Threads numbered as hitfam/enum.h says: labelled ones by first appearance, then T + v. */
static void thread_numbers(uint32_t *th, uint32_t *nt)
{
    uint32_t num[4] = {UINT32_MAX, UINT32_MAX, UINT32_MAX, UINT32_MAX}, T = 0;
    for (uint32_t v = 0; v < M.n; v++)
        if (M.thread[v] != UINT32_MAX && num[M.thread[v]] == UINT32_MAX)
            num[M.thread[v]] = T++;
    for (uint32_t v = 0; v < M.n; v++)
        th[v] = M.thread[v] != UINT32_MAX ? num[M.thread[v]] : T + v;
    *nt = T + M.n;
}

static bool enabled(const bool *ran, uint32_t v)
{
    if (ran[v])
        return false;
    for (uint32_t u = 0; u < M.n; u++)
        if (M.lt[u][v] && !ran[u])
            return false;
    return true;
}

/* Preemptions (mode 2) or delays (mode 3) of schedule s. */
static uint32_t cost(const uint32_t *s, int mode)
{
    uint32_t th[MAXN], nt, total = 0, last = 0;
    thread_numbers(th, &nt);
    bool ran[MAXN] = {false};
    for (uint32_t i = 0; i < M.n; i++) {
        bool runnable[2 * MAXN + 4] = {false};
        for (uint32_t v = 0; v < M.n; v++)
            if (enabled(ran, v))
                runnable[th[v]] = true;
        uint32_t u = th[s[i]];
        if (mode == 3) {
            for (uint32_t t = last; t != u; t = (t + 1) % nt)
                total += runnable[t];
        } else if (i > 0 && u != last && runnable[last]) {
            total++;
        }
        ran[s[i]] = true;
        last = u;
    }
    return total;
}

static int lex(const uint32_t *a, const uint32_t *b)
{
    for (uint32_t i = 0; i < M.n; i++)
        if (a[i] != b[i])
            return a[i] < b[i] ? -1 : 1;
    return 0;
}

static uint64_t trace_key(const uint32_t *s)
{
    uint32_t pos[MAXN];
    for (uint32_t i = 0; i < M.n; i++)
        pos[s[i]] = i;
    uint64_t k = 0;
    for (uint32_t a = 0; a < M.n; a++)
        for (uint32_t b = a + 1; b < M.n; b++)
            if (conflict(a, b))
                k = k * 2 + (pos[a] < pos[b]);
    return k;
}

static uint32_t want[MAXE][MAXN];
static uint32_t got[MAXE + 1][MAXN];
static uint64_t keys[MAXE];

static int cmp_rows(const void *a, const void *b) { return lex(a, b); }

static size_t run_sink_count;
static hf_status count_sink(void *user, const uint32_t *s, uint32_t n)
{
    (void)user;
    (void)s;
    (void)n;
    run_sink_count++;
    return HF_OK;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 4)
        return 0;
    M.n = 1 + data[0] % MAXN;
    int mode = (data[0] >> 3) % 4;
    uint32_t K = data[1] % 6;
    uint64_t limit = data[1] >> 4 ? (uint64_t)(data[1] >> 4) * 3 : 0;
    const uint8_t *b = data + 2;
    size_t left = size - 2;
    /* labels: one byte per event (thread 2 bits, object 2 bits, a write bit) */
    M.any_object = false;
    for (uint32_t v = 0; v < M.n; v++) {
        uint8_t x = v < left ? b[v] : 0;
        M.thread[v] = x & 3 ? (uint32_t)(x & 3) : UINT32_MAX;
        M.object[v] = (x >> 2) & 3 ? (uint32_t)((x >> 2) & 3) : UINT32_MAX;
        M.writes[v] = (x >> 4) & 1;
        M.any_object |= M.object[v] != UINT32_MAX;
    }
    size_t eb = M.n < left ? M.n : left;
    b += eb;
    left -= eb;
    /* edges i -> j (i < j), one bit each */
    memset(M.lt, 0, sizeof M.lt);
    hf_poset_builder *pb = NULL;
    if (hf_poset_builder_new(NULL, &pb) != HF_OK)
        abort();
    for (uint32_t v = 0; v < M.n; v++) {
        char name[16];
        snprintf(name, sizeof name, "e%u", v);
        if (hf_poset_builder_add_event(pb, name, NULL) != HF_OK)
            abort();
        if (M.thread[v] != UINT32_MAX) {
            snprintf(name, sizeof name, "t%u", M.thread[v]);
            if (hf_poset_builder_set_thread(pb, v, name) != HF_OK)
                abort();
        }
        if (M.object[v] != UINT32_MAX) {
            snprintf(name, sizeof name, "o%u", M.object[v]);
            if (hf_poset_builder_set_object(
                    pb, v, name, M.writes[v] ? HF_ACCESS_WRITE : HF_ACCESS_READ) != HF_OK)
                abort();
        }
    }
    size_t bit = 0;
    for (uint32_t i = 0; i < M.n; i++)
        for (uint32_t j = i + 1; j < M.n; j++, bit++)
            if (bit / 8 < left && (b[bit / 8] >> (bit % 8)) & 1) {
                M.lt[i][j] = true;
                if (hf_poset_builder_add_order(pb, i, j) != HF_OK)
                    abort();
            }
    hf_poset *p = NULL;
    if (hf_poset_builder_finish(pb, &p, NULL) != HF_OK)
        abort();
    hf_poset_builder_free(pb);
    for (uint32_t k = 0; k < M.n; k++) /* the closure */
        for (uint32_t i = 0; i < M.n; i++)
            for (uint32_t j = 0; j < M.n; j++)
                M.lt[i][j] = M.lt[i][j] || (M.lt[i][k] && M.lt[k][j]);
    M.m = 0;
    uint32_t prefix[MAXN];
    bool placed[MAXN] = {false};
    extensions(prefix, 0, placed);

    /* the model's selection, in lexicographic order */
    size_t wm = 0;
    for (size_t i = 0; i < M.m; i++) {
        const uint32_t *s = M.ext[i];
        bool take = true;
        if (mode == HF_ENUM_TRACES) {
            uint64_t k = trace_key(s);
            for (size_t j = 0; j < wm && take; j++)
                take = keys[j] != k;
            if (take)
                keys[wm] = k;
        } else if (mode == HF_ENUM_PREEMPTIONS || mode == HF_ENUM_DELAYS) {
            take = cost(s, mode) <= K;
        }
        if (take)
            memcpy(want[wm++], s, M.n * sizeof *s);
    }

    hf_enum_options o;
    hf_enum_options_init(&o);
    o.mode = (hf_enum_mode)mode;
    o.preemptions = K;
    o.delays = K;
    o.limit = limit;
    hf_enum *e = NULL;
    if (hf_enum_new(p, &o, &e, NULL) != HF_OK)
        abort();
    size_t gm = 0;
    hf_enum_step st;
    while ((st = hf_enum_next(e, got[gm])) == HF_ENUM_SCHEDULE)
        if (++gm > wm)
            abort(); /* more than the selection */
    size_t expect = limit && limit < wm ? (size_t)limit : wm;
    if (gm != expect || st != (limit && limit < wm ? HF_ENUM_LIMIT : HF_ENUM_DONE) ||
        hf_enum_given(e) != gm || hf_enum_next(e, got[0]) != st)
        abort();
    hf_enum_free(e);
    if (mode != HF_ENUM_ALL) {
        /* the first schedules of the selection, in order */
        for (size_t i = 0; i < gm; i++)
            if (lex(got[i], want[i]) != 0)
                abort();
    } else {
        /* every linear extension once (in Varol and Rotem's order) */
        qsort(got, gm, sizeof got[0], cmp_rows);
        if (!limit || limit >= wm)
            for (size_t i = 0; i < gm; i++)
                if (lex(got[i], want[i]) != 0)
                    abort();
        for (size_t i = 1; i < gm; i++)
            if (lex(got[i - 1], got[i]) == 0)
                abort();
    }
    /* the count, by default, without a bound, and within a small bound (the dynamic program or
     * a refusal) */
    mpz_t c;
    mpz_init(c);
    uint64_t works[] = {HF_ENUM_DEFAULT_WORK, 0, 64};
    for (size_t w = 0; w < sizeof works / sizeof works[0]; w++) {
        o.max_work = works[w];
        hf_error err;
        hf_status cs = hf_enum_count(p, &o, c, &err);
        if (cs == HF_ETOOLARGE && works[w] == 64)
            continue;
        if (cs != HF_OK || mpz_cmp_ui(c, (unsigned long)wm) != 0)
            abort();
    }
    mpz_clear(c);
    o.max_work = HF_ENUM_DEFAULT_WORK;
    uint64_t given = 0;
    bool more = false;
    run_sink_count = 0;
    if (hf_enum_run(p, &o, (hf_sink){count_sink, NULL}, &given, &more, NULL) != HF_OK ||
        given != gm || run_sink_count != gm || more != (limit && limit < wm))
        abort();
    hf_poset_free(p);
    return 0;
}
