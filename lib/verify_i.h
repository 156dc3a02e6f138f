/* What the files of hf_verify share (lib/verify.c explains the method): the check's tables, one
 * thread's levels, and the entry points of the tables, the prefix enumeration and the threads. */
#ifndef HITFAM_VERIFY_I_H
#define HITFAM_VERIFY_I_H

#include <stdatomic.h>

#include "family_stream_i.h"
#include "hitfam/count.h"
#include "internal.h"

struct ver {
    const hf_poset *p;
    hf_ctx *ctx;
    uint32_t n;
    size_t m; /* distinct schedules: copies add nothing and would only be consulted again */
    unsigned d;
    size_t W;   /* words of an event bitset */
    uint32_t B; /* positions per checkpoint block (a power of two) */
    unsigned B_log;
    uint32_t nb; /* blocks: ceil(n / B); checkpoints exist for boundaries 1..nb-1 */
    const uint32_t *rows;
    uint32_t *orig;      /* orig[s]: the family's index of distinct schedule s */
    uint32_t *pos;       /* pos[x * m + s]: position of event x in schedule s */
    uint32_t *by_pos;    /* by_pos[x * m + i]: the schedules sorted by the position of x */
    uint32_t *by_pos_at; /* by_pos_at[x * m + i]: the position of x in schedule by_pos[x*m+i] */
    hf_word *ck;         /* schedule s, boundary k: ck + (s * (nb - 1) + k - 1) * W */
    hf_word *focus;
    uint32_t focus_events; /* distinct focus events */
    /* Forest or in-forest views (no closure): the size of F_{d-1} is then known without
     * building it, which lets a prefix be settled by its first schedule (see from_first). */
    bool tree;
    bool mapped;         /* the tables went to a mapped file */
    uint64_t heap_bytes; /* what the tables and the rows hold on the heap otherwise */
    unsigned pair_rent;  /* see HF_I_PAIR_RENT (lib/verify_ref.h) */
    bool reference;      /* settle every prefix as before the greedy order (the benchmark's
                            reference, hf_i_verify_reference) */
    /* Where pos, by_pos, by_pos_at and ck live: the heap, or a mapped temporary file when
     * opt->memory_limit is exceeded (lib/family_stream.c); the check reads them the same way. */
    hf_i_big pos_big, by_pos_big, by_pos_at_big, ck_big;
};

/* The schedules to check: m rows of n ids, of which heap bytes are on the heap; lines[k], for
 * k < lined, the text line schedule k was read from (0: unknown), for a refused schedule's
 * err->line. */
struct rows {
    const uint32_t *rows;
    uint32_t n;
    size_t m;
    size_t heap;
    const size_t *lines;
    size_t lined;
};

/* What one thread of the enumeration owns (allocated before any thread starts). */
struct worker {
    const struct ver *v;
    hf_word *F;       /* d levels of W words; level 0 is empty */
    uint8_t *S;       /* d levels of m flags (S_i[s]: s keeps a1..ai in order); level 0: all 1 */
    hf_word *rem;     /* W */
    uint32_t *sel;    /* m: the schedules of S_{d-1}, by position of a_{d-1} */
    uint32_t *sel_at; /* m: the position of a_{d-1} in each */
    /* d >= 3 on a tree: per (d-2)-prefix, for a forest, aux[x] = the number of ancestors of x
     * (x included) in F_{d-2}; for an in-forest, aux[t] = the members of F_{d-2} among the
     * first t events of the DFS order (n + 1 entries) */
    uint32_t *aux;
    /* d >= 3 on a forest: per (d-2)-prefix, the minimal events outside F_{d-2} (roots and
     * children of its members), cand_count of them, or cand_count = SIZE_MAX when too many */
    uint32_t *cand;
    size_t cand_count;
    /* d = 3 on a forest with the pair matrices (lib/verify_forest.c): the first event's row of A
     * (W words, valid when pair_a_ok), the second entries to visit (those failing A's test or
     * whose chunk of B is not filled), a row's room, and 64 rows of B (64 W words) */
    hf_word *pair_a, *pair_visit, *pair_tmp, *pair_block;
    bool pair_a_ok;
    uint64_t count_lo, count_hi; /* uncovered tuples: count_hi * 2^64 + count_lo */
    size_t found;                /* index (in the shard's first events) of the witness, or
                                    SIZE_MAX */
    uint32_t witness[HF_MAX_D];
    bool reports;   /* runs in the calling thread: the one that calls the progress callback */
    uint64_t steps; /* since the last poll (HF_I_VER_POLL) */
};

/* Where the workers meet: the first events of the shard's prefixes, handed out in increasing
 * order, and the index of the earliest one known to start an uncovered tuple. */
struct shared {
    const struct ver *v;
    bool first_only;
    const uint32_t *firsts; /* the shard's first events, increasing */
    size_t count;           /* how many */
    /* d = 3 on a forest: the matrix B transposed (row a of W words has bit b when B[b] has bit
     * a), NULL when not used. Its chunks (word u of every row: the 64 b from 64 u) are filled
     * lazily: a chunk is filled by the first worker to find that the prefixes it settled
     * without it (those passing A's test but not the quick test, their b in the chunk) cost,
     * in all workers, as much as filling it would (pair_cost[u], in steps). pair_state[u]: 0
     * empty, 1 being filled, 2 filled (read with acquire before the words of the chunk). */
    hf_word *pair_b;
    size_t pair_chunks; /* ceil(n / 64) */
    atomic_uchar *pair_state;
    atomic_uint_fast64_t *pair_spent;
    const uint64_t *pair_cost;
    atomic_size_t next; /* the next index to hand out */
    atomic_size_t best; /* with first_only: the least index found uncovered, or SIZE_MAX */
    /* Progress and cancellation: only the calling thread calls the progress callback (status
     * and err are its); the other workers read stop, set when the callback asks to stop. */
    atomic_size_t done;  /* first events finished */
    atomic_uint running; /* workers on threads of their own not yet finished */
    atomic_bool stop;    /* every worker returns at its next poll */
    hf_status status;    /* HF_EABORTED once the callback asked to stop */
    hf_error *err;
};

/* Steps of the enumeration between two polls (of the progress callback in the calling thread,
 * of the stop flag in the others). A step is one prefix entry tried or one schedule looked at,
 * a few word operations at least, so that a poll (a clock read in a typical callback) stays far
 * below a thousandth of the work, and polls still come every millisecond or so. */
#define HF_I_VER_POLL ((uint64_t)1 << 14)

/* Units of setup work (schedule ids read or written) between two reports. */
#define HF_I_VER_SETUP_STEP ((uint64_t)1 << 16)

/* The calling thread's report during the setup, before the count of first events is known:
 * after every HF_I_VER_SETUP_STEP units added to *work; HF_EABORTED when the callback asks to
 * stop. */
static inline hf_status hf_i_ver_setup_tick(hf_ctx *ctx, uint64_t *work, uint64_t add,
                                            hf_error *err)
{
    if ((*work += add) < HF_I_VER_SETUP_STEP)
        return HF_OK;
    *work = 0;
    return hf_i_progress(ctx, "verify", 0, 0, err);
}

static inline const uint32_t *hf_i_ver_row(const struct ver *v, size_t s)
{
    return v->rows + (size_t)v->orig[s] * v->n;
}

/* lib/verify_tables.c: everything but the enumeration levels' content (needs a validated input;
 * on failure nothing is held), and its release. */
hf_status hf_i_ver_init(struct ver *v, const hf_poset *p, const struct rows *f,
                        const hf_verify_options *opt, hf_error *err);
void hf_i_ver_free(struct ver *v);

/* lib/verify_prefix.c: the admissible prefixes under the first event sh->firsts[idx]. */
bool hf_i_ver_from_first(struct worker *w, struct shared *sh, size_t idx);

/* lib/verify_threads.c: the shards, the threads and their workers. hf_i_ver_poll: the calling
 * thread's worker reports progress (and stops every worker when the callback says so); true when
 * the worker should return now. */
bool hf_i_ver_poll(const struct worker *w, struct shared *sh);

/* Count cost steps for w; poll once they reach HF_I_VER_POLL. True: return now. */
static inline bool hf_i_ver_tick(struct worker *w, struct shared *sh, uint64_t cost)
{
    if ((w->steps += cost) < HF_I_VER_POLL)
        return false;
    w->steps = 0;
    return hf_i_ver_poll(w, sh);
}

/* lib/verify_forest.c (forests, d >= 3). hf_i_ver_forest_frontier: w->cand for F = F_{d-2}.
 * hf_i_ver_forest_covered: true when the prefix ending in b, with F_{d-2} = Fprev and S_{d-1} in
 * w->sel / w->sel_at (k), hits every continuation (false: it may not); with below_only, only the
 * children along b's path are looked up (A's row holds the others). hf_i_ver_forest_row_a: A's
 * row of the first event a into w->pair_a (d = 3, after the frontier of F_1).
 * hf_i_ver_forest_rows_b: B's rows of chunk (64 b) into sh->pair_b; false when the workers are
 * stopped. hf_i_ver_forest_chunk_costs: what filling each chunk costs, in steps, into cost
 * (ceil(n / 64) entries); false when out of memory. */
void hf_i_ver_forest_frontier(struct worker *w, const hf_word *F);
bool hf_i_ver_forest_covered(struct worker *w, const hf_word *Fprev, uint32_t b, size_t k,
                             bool below_only);
void hf_i_ver_forest_row_a(struct worker *w, uint32_t a);
bool hf_i_ver_forest_rows_b(struct worker *w, struct shared *sh, size_t chunk);
bool hf_i_ver_forest_chunk_costs(const struct ver *v, uint64_t *cost);

uint32_t hf_i_ver_shard_first_event(const struct ver *v, const hf_verify_options *opt);
unsigned long hf_i_ver_shard_events(const struct ver *v, const hf_verify_options *opt);
hf_status hf_i_ver_enumerate(const struct ver *v, const hf_verify_options *opt, bool first_only,
                             uint32_t *witness, mpz_t total, bool *found, hf_error *err);

#endif
