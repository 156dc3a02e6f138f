/* The threads and shards of hf_verify: each shard's first events, handed out one at a time to
 * workers that own their levels, and the witness or count gathered from them. */
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "hitfam/count.h"
#include "poset_i.h"
#include "verify_i.h"

static void worker_free(hf_ctx *ctx, struct worker *w)
{
    hf_i_free(ctx, w->F);
    hf_i_free(ctx, w->S);
    hf_i_free(ctx, w->rem);
    hf_i_free(ctx, w->sel);
    hf_i_free(ctx, w->sel_at);
    hf_i_free(ctx, w->aux);
    hf_i_free(ctx, w->cand);
    hf_i_free(ctx, w->pair_a);
    hf_i_free(ctx, w->pair_visit);
    hf_i_free(ctx, w->pair_tmp);
    hf_i_free(ctx, w->pair_block);
}

/* A worker's levels and buffers (with a_rows, A's; with b_rows, B's); false when out of memory
 * (then nothing is held). */
static bool worker_init(const struct ver *v, struct worker *w, bool a_rows, bool b_rows)
{
    memset(w, 0, sizeof *w);
    w->v = v;
    w->found = SIZE_MAX;
    size_t W = v->W ? v->W : 1, m = v->m ? v->m : 1;
    w->F = hf_i_calloc(v->ctx, (size_t)v->d * W, sizeof *w->F);
    w->S = hf_i_alloc_array(v->ctx, v->d, m);
    w->rem = hf_i_calloc(v->ctx, W, sizeof *w->rem);
    w->sel = hf_i_alloc_array(v->ctx, m, sizeof *w->sel);
    w->sel_at = hf_i_alloc_array(v->ctx, m, sizeof *w->sel_at);
    if (v->tree && v->d >= 3)
        w->aux = hf_i_alloc_array(v->ctx, (size_t)v->n + 1, sizeof *w->aux);
    const bool forest = v->tree && !v->p->dual && v->d >= 3;
    if (forest)
        w->cand = hf_i_alloc_array(v->ctx, v->n ? v->n : 1, sizeof *w->cand);
    if (!w->F || !w->S || !w->rem || !w->sel || !w->sel_at || (v->tree && v->d >= 3 && !w->aux) ||
        (forest && !w->cand)) {
        worker_free(v->ctx, w);
        return false;
    }
    if (a_rows) {
        w->pair_a = hf_i_alloc_array(v->ctx, W, sizeof *w->pair_a);
        w->pair_visit = hf_i_alloc_array(v->ctx, W, sizeof *w->pair_visit);
        w->pair_tmp = hf_i_alloc_array(v->ctx, W, sizeof *w->pair_tmp);
    }
    if (b_rows)
        w->pair_block = hf_i_alloc_array(v->ctx, HF_WORD_BITS * W, sizeof *w->pair_block);
    if ((a_rows && (!w->pair_a || !w->pair_visit || !w->pair_tmp)) || (b_rows && !w->pair_block)) {
        worker_free(v->ctx, w);
        return false;
    }
    memset(w->S, 1, m);
    return true;
}

static void mpz_add_u64(mpz_t z, uint64_t x)
{
#if ULONG_MAX >= UINT64_MAX
    mpz_add_ui(z, z, (unsigned long)x);
#else
    mpz_t t;
    mpz_init_set_ui(t, (unsigned long)(x >> 32));
    mpz_mul_2exp(t, t, 32);
    mpz_add_ui(t, t, (unsigned long)(x & 0xffffffffu));
    mpz_add(z, z, t);
    mpz_clear(t);
#endif
}

bool hf_i_ver_poll(const struct worker *w, struct shared *sh)
{
    if (w->reports && !atomic_load_explicit(&sh->stop, memory_order_relaxed)) {
        size_t done = atomic_load_explicit(&sh->done, memory_order_relaxed);
        hf_status st = hf_i_progress(w->v->ctx, "verify", done, sh->count, sh->err);
        if (st) {
            sh->status = st;
            atomic_store(&sh->stop, true);
        }
    }
    return atomic_load_explicit(&sh->stop, memory_order_relaxed);
}

/* One worker: take the next first event until none is left (or, with first_only, until the
 * rest come after one known to start an uncovered tuple, or until the workers are stopped).
 * Worker 0 runs in the calling thread and reports progress. */
struct job {
    struct shared *sh;
    struct worker *w;
    bool log;
};

static void *work(void *arg)
{
    struct job *job = arg;
    struct shared *sh = job->sh;
    struct worker *w = job->w;
    const struct ver *v = sh->v;
    size_t step = sh->count / 100 ? sh->count / 100 : 1, logged = 0;
    for (;;) {
        size_t i = atomic_fetch_add(&sh->next, 1);
        if (i >= sh->count)
            break;
        if (sh->first_only && i > atomic_load(&sh->best))
            break;
        if (job->log && i >= logged) {
            hf_i_log(v->ctx, HF_LOG_PROGRESS, "verify d=%u: first event %" PRIu32 " of %" PRIu32,
                     v->d, sh->firsts[i], v->n);
            logged = i + step;
        }
        bool hit = hf_i_ver_from_first(w, sh, i);
        if (atomic_load_explicit(&sh->stop, memory_order_relaxed))
            break;
        atomic_fetch_add_explicit(&sh->done, 1, memory_order_relaxed);
        if (hit) {
            w->found = i;
            size_t b = atomic_load(&sh->best);
            while (i < b && !atomic_compare_exchange_weak(&sh->best, &b, i)) {
            }
            break;
        }
    }
    if (!w->reports)
        atomic_fetch_sub(&sh->running, 1);
    return NULL;
}

/* The calling thread, its own share done, while the other workers finish theirs: it goes on
 * reporting (every few milliseconds) and stops them when the callback says so. Without a
 * callback the joins just wait. */
static void report_until_finished(const struct worker *w, struct shared *sh)
{
    hf_ctx *ctx = w->v->ctx;
    if (!ctx || !ctx->progress)
        return;
    const struct timespec pause = {0, 2000000};
    while (atomic_load(&sh->running) > 0) {
        hf_i_ver_poll(w, sh);
        nanosleep(&pause, NULL);
    }
}

/* Threads to use: the option (0: the processors online), at most one per first event, and one
 * alone for small checks, where starting threads would cost more than they save. */
static unsigned thread_count(const struct ver *v, unsigned wanted, size_t firsts)
{
    if (wanted == 0 && (uint64_t)v->n * v->m * firsts < ((uint64_t)1 << 20))
        return 1;
    if (wanted == 0) {
        long online = sysconf(_SC_NPROCESSORS_ONLN);
        wanted = online > 0
                     ? (unsigned)(online < HF_VERIFY_MAX_THREADS ? online : HF_VERIFY_MAX_THREADS)
                     : 1;
    }
    if (wanted > HF_VERIFY_MAX_THREADS)
        wanted = HF_VERIFY_MAX_THREADS;

    return wanted < firsts ? wanted : firsts ? (unsigned)firsts : 1;
}

/* The rank of a (focus) event among the (focus) events decides its shard. */
static bool in_shard(const hf_verify_options *opt, size_t rank)
{
    uint32_t k = opt->shard_count > 1 ? opt->shard_count : 1;
    return rank % k == opt->shard_index;
}

/* The lowest (focus) event of the shard, or HF_NO_EVENT. */
uint32_t hf_i_ver_shard_first_event(const struct ver *v, const hf_verify_options *opt)
{
    size_t rank = 0;
    for (uint32_t x = 0; x < v->n; x++)
        if (hf_i_bit_test(v->focus, x) && in_shard(opt, rank++))
            return x;
    return HF_NO_EVENT;
}

/* The number of (focus) events of the shard. */
unsigned long hf_i_ver_shard_events(const struct ver *v, const hf_verify_options *opt)
{
    unsigned long count = 0;
    size_t rank = 0;
    for (uint32_t x = 0; x < v->n; x++)
        if (hf_i_bit_test(v->focus, x) && in_shard(opt, rank++))
            count++;
    return count;
}

/* The shard's first events: the (focus) events whose rank among the (focus) events, in
 * increasing id order, is shard_index modulo shard_count. NULL when out of memory. */
static uint32_t *shard_firsts(const struct ver *v, const hf_verify_options *opt, size_t *count)
{
    uint32_t *firsts =
        hf_i_alloc_array(v->ctx, v->focus_events ? v->focus_events : 1, sizeof *firsts);
    if (!firsts)
        return NULL;
    size_t c = 0, rank = 0;
    for (uint32_t x = 0; x < v->n; x++)
        if (hf_i_bit_test(v->focus, x) && in_shard(opt, rank++))
            firsts[c++] = x;
    *count = c;
    return firsts;
}

/* The pair matrices of lib/verify_forest.c: A's rows for d = 3 on a forest in the new order
 * (not the benchmark's reference); B too when it fits: at most PAIR_BUDGET bytes, within the
 * memory limit beside the tables (never when these went to a mapped file). B's chunks are filled
 * only when the prefixes that need them have cost as much (lib/verify_prefix.c), so a shard,
 * a witness found early, or a deep tree whose prefixes the quick test settles pays for no more
 * of B than it uses. */
#define PAIR_BUDGET ((uint64_t)1 << 25)
static bool use_rows_a(const struct ver *v)
{
    return v->d == 3 && v->tree && !v->p->dual && v->pos && !v->reference;
}

static bool use_rows_b(const struct ver *v, const hf_verify_options *opt)
{
    if (!use_rows_a(v) || v->mapped)
        return false;
    uint64_t bytes = (uint64_t)v->n * v->W * sizeof(hf_word);
    return bytes <= PAIR_BUDGET &&
           (!opt->memory_limit || v->heap_bytes + bytes <= opt->memory_limit);
}

/* The enumeration over the shard (d >= 2), on opt->threads threads. With first_only: true and
 * the lexicographically first uncovered tuple of the shard in witness, or false; otherwise
 * false and the uncovered tuples of the shard in total. Every buffer is allocated here, before
 * any thread starts. The calling thread reports progress (task "verify", first events finished
 * of the shard's); when the callback asks to stop, every worker returns at its next poll, the
 * threads are joined, and HF_EABORTED comes back with nothing held. */
hf_status hf_i_ver_enumerate(const struct ver *v, const hf_verify_options *opt, bool first_only,
                             uint32_t *witness, mpz_t total, bool *found, hf_error *err)
{
    *found = false;
    size_t count = 0;
    uint32_t *firsts = shard_firsts(v, opt, &count);
    unsigned threads = thread_count(v, opt->threads, count);
    const bool a_rows = use_rows_a(v), pairs = use_rows_b(v, opt);
    size_t pair_words = pairs ? (size_t)v->n * v->W : 0;
    size_t chunks = pairs ? (v->n + HF_WORD_BITS - 1) / HF_WORD_BITS : 0;
    hf_word *pair_b = pairs ? hf_i_alloc_array(v->ctx, pair_words, sizeof *pair_b) : NULL;
    atomic_uchar *pair_state = pairs ? hf_i_alloc_array(v->ctx, chunks, sizeof *pair_state) : NULL;
    atomic_uint_fast64_t *pair_spent =
        pairs ? hf_i_alloc_array(v->ctx, chunks, sizeof *pair_spent) : NULL;
    uint64_t *pair_cost = pairs ? hf_i_alloc_array(v->ctx, chunks, sizeof *pair_cost) : NULL;
    bool pairs_ready = !pairs || (pair_b && pair_state && pair_spent && pair_cost &&
                                  hf_i_ver_forest_chunk_costs(v, pair_cost));
    struct worker *ws = hf_i_calloc(v->ctx, threads, sizeof *ws);
    struct job *jobs = hf_i_calloc(v->ctx, threads, sizeof *jobs);
    pthread_t *tid = hf_i_calloc(v->ctx, threads, sizeof *tid);
    unsigned ready = 0;
    if (firsts && ws && jobs && tid && pairs_ready)
        while (ready < threads && worker_init(v, &ws[ready], a_rows, pairs))
            ready++;
    if (ready < threads) {
        hf_i_free(v->ctx, pair_b);
        hf_i_free(v->ctx, pair_state);
        hf_i_free(v->ctx, pair_spent);
        hf_i_free(v->ctx, pair_cost);
        for (unsigned t = 0; t < ready; t++)
            worker_free(v->ctx, &ws[t]);
        hf_i_free(v->ctx, firsts);
        hf_i_free(v->ctx, ws);
        hf_i_free(v->ctx, jobs);
        hf_i_free(v->ctx, tid);
        return hf_i_fail(err, HF_ENOMEM, 0, 0, "out of memory verifying a family of %zu schedules",
                         v->m);
    }
    struct shared sh = {.v = v,
                        .first_only = first_only,
                        .firsts = firsts,
                        .count = count,
                        .err = err,
                        .pair_b = pair_b,
                        .pair_chunks = chunks,
                        .pair_state = pair_state,
                        .pair_spent = pair_spent,
                        .pair_cost = pair_cost};
    for (size_t u = 0; u < chunks; u++) {
        atomic_init(&pair_state[u], 0);
        atomic_init(&pair_spent[u], 0);
    }
    atomic_init(&sh.next, 0);
    atomic_init(&sh.best, SIZE_MAX);
    atomic_init(&sh.done, 0);
    atomic_init(&sh.running, threads - 1);
    atomic_init(&sh.stop, false);
    ws[0].reports = true;
    /* a thread that cannot be started leaves its share to the others */
    unsigned started = 1;
    for (unsigned t = 0; t < threads; t++)
        jobs[t] = (struct job){.sh = &sh, .w = &ws[t], .log = t == 0};
    for (unsigned t = 1; t < threads; t++)
        if (pthread_create(&tid[started], NULL, work, &jobs[t]) == 0)
            started++;
        else
            atomic_fetch_sub(&sh.running, 1);
    work(&jobs[0]);
    report_until_finished(&ws[0], &sh);
    for (unsigned t = 1; t < started; t++)
        pthread_join(tid[t], NULL);
    size_t best = SIZE_MAX;
    for (unsigned t = 0; t < threads && !sh.status; t++) {
        if (first_only && ws[t].found < best) {
            best = ws[t].found;
            memcpy(witness, ws[t].witness, v->d * sizeof *witness);
        }
        if (!first_only) {
            mpz_t hi;
            mpz_init(hi);
            mpz_add_u64(hi, ws[t].count_hi);
            mpz_mul_2exp(hi, hi, 64);
            mpz_add(total, total, hi);
            mpz_add_u64(total, ws[t].count_lo);
            mpz_clear(hi);
        }
    }
    for (unsigned t = 0; t < threads; t++)
        worker_free(v->ctx, &ws[t]);
    *found = best != SIZE_MAX;
    hf_i_free(v->ctx, firsts);
    hf_i_free(v->ctx, ws);
    hf_i_free(v->ctx, jobs);
    hf_i_free(v->ctx, tid);
    hf_i_free(v->ctx, pair_b);
    hf_i_free(v->ctx, pair_state);
    hf_i_free(v->ctx, pair_spent);
    hf_i_free(v->ctx, pair_cost);
    return sh.status;
}
