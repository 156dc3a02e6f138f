/* hitfam: smallest d-hitting families by SAT (method exact, minimize --sat).
 * A topic header beside hitfam.h: the exact search, its budget and what it proved. */
#ifndef HITFAM_EXACT_H
#define HITFAM_EXACT_H

#include <hitfam/hitfam.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Most (focus) events the SAT encoding takes: one variable per incomparable pair per schedule,
 * two clauses per triple per schedule. */
#define HF_EXACT_MAX_EVENTS 64u
/** Most admissible d-tuples (of focus events) the SAT encoding takes: one variable per tuple per
 * schedule. */
#define HF_EXACT_MAX_TUPLES 100000u
/** Most schedules the encoding holds: a search that starts from a larger family first looks for
 * a family of this many schedules. */
#define HF_EXACT_MAX_ROWS 256u
/** Most literals of all clauses together (about 4 bytes each in the solver, several times that
 * with its watches); an order and d beyond it are refused. */
#define HF_EXACT_MAX_LITERALS ((uint64_t)1 << 27)
/** Default conflict budget of hf_exact_solve, hf_exact_remove_one and an explicit
 * `--method exact` (hf_gen_options.conflicts 0): some seconds to a minute. */
#define HF_EXACT_DEFAULT_CONFLICTS 2000000u
/** Conflict budget of method exact when auto weighs it (hf_gen_options.conflicts 0): a few
 * hundredths of a second on the orders auto tries it on. */
#define HF_EXACT_AUTO_CONFLICTS 6000u

/** Whether this build of hitfam has the SAT solver (CaDiCaL, Debian package libcadical-dev,
 * meson feature `sat`). Without it method exact, hf_exact_solve and hf_exact_remove_one refuse
 * with HF_EUNSUPPORTED and a message naming the library. */
HF_API bool hf_exact_available(void);

/** Options of hf_exact_solve and hf_exact_remove_one. Initialise with hf_exact_options_init. */
typedef struct hf_exact_options {
    unsigned d;             /**< 1..HF_MAX_D (default 2) */
    const uint32_t *focus;  /**< if non-NULL: only tuples of these events must be hit (the
                                 search runs on the order they induce; each schedule is then
                                 extended to all events) */
    size_t focus_count;     /**< number of ids in focus (duplicates allowed) */
    uint64_t conflicts;     /**< the budget: SAT conflicts over all solver calls (0, the
                                 default: HF_EXACT_DEFAULT_CONFLICTS). Deterministic: the same
                                 input and budget give the same family and verdict everywhere */
    const hf_family *start; /**< hf_exact_solve: a known d-hitting family to go down from (not
                                 checked beyond its event count; NULL, the default: the
                                 smallest family of the constructions dfs, doubletree, simple,
                                 scramble, pattern and (up to 32 events, d <= 4, not for
                                 trees) greedy, else
                                 greedy or chains) */
} hf_exact_options;

/** Defaults: d = 2, no focus set, conflicts 0 (HF_EXACT_DEFAULT_CONFLICTS), no start family. */
HF_API void hf_exact_options_init(hf_exact_options *o);

/** What a search established. */
typedef struct hf_exact_result {
    size_t schedules;   /**< size of the family returned */
    size_t lower_bound; /**< every d-hitting family has at least this many schedules (from the
                             solver's refutations and hf_count_lower_bound); equals
                             `schedules` when proved */
    bool proved;        /**< the family is a smallest d-hitting family */
    bool exhausted;     /**< the conflict budget ran out before the search ended */
    uint64_t conflicts; /**< conflicts spent (learned clauses counted) */
    unsigned calls;     /**< SAT solver calls */
    unsigned d;         /**< tuple length handled: min(d, number of (focus) events) */
} hf_exact_result;

/** A smallest d-hitting family of @p p, or the smallest found within the budget. Starts from a
 * known family of M schedules (o->start or a construction), asks the solver for a family of at
 * most M - 1 schedules, and keeps going down from each family found (after dropping its
 * redundant schedules) until the solver proves that none smaller exists (then result->proved),
 * the size reaches hf_count_lower_bound, or the budget runs out (result->exhausted: the family
 * is the best found, result->lower_bound what was proved). The encoding (docs/bounds.md): per
 * schedule one variable per incomparable pair of (focus) events with clauses forbidding
 * 3-cycles, one variable per admissible tuple implying its consecutive pairs, one clause per
 * tuple asking some schedule to hit it, and symmetry breaking (schedules in lexicographic
 * order of their pair variables; for an antichain the first schedule fixed to the identity).
 * On success the caller owns `*out` (hf_family_free). Errors: HF_EINVAL (NULL argument, bad d,
 * focus id out of range, a start family of another event count or empty while tuples exist);
 * HF_EUNSUPPORTED (no SAT solver in this build: the message names libcadical-dev); HF_ETOOLARGE
 * (more than HF_EXACT_MAX_EVENTS (focus) events, more than HF_EXACT_MAX_TUPLES admissible
 * tuples, or more than HF_EXACT_MAX_LITERALS literals); HF_ENOMEM. The solver allocates with
 * the C++ allocator, outside the context's; its running out of memory ends the process. Memory
 * O(M * (k^3 + T * d)) literals for k (focus) events and T tuples; time: NP-hard in general,
 * bounded by the budget (a conflict costs microseconds to milliseconds).
 * Progress (hf_ctx_set_progress on the order's context): task "exact", the conflicts spent of
 * the budget, reported between solver calls and every few hundred conflicts within one (through
 * the solver's terminate callback); when the callback asks to stop, the solver is released and
 * HF_EABORTED returned, nothing in `*out`. */
HF_API HF_NODISCARD hf_status hf_exact_solve(const hf_poset *p, const hf_exact_options *o,
                                             hf_family **out, hf_exact_result *result,
                                             hf_error *err);

/** Outcome of hf_exact_remove_one. */
typedef enum hf_exact_verdict {
    HF_EXACT_IMPROVED = 0, /**< a d-hitting family of fewer schedules replaced the family */
    HF_EXACT_MINIMAL = 1,  /**< the solver proved that no d-hitting family is smaller: the
                                family is a smallest one */
    HF_EXACT_EXHAUSTED = 2 /**< the budget ran out: nothing is known, the family is unchanged */
} hf_exact_verdict;

/** Try to remove one schedule from the d-hitting family @p f of @p p: ask the solver for a
 * d-hitting family of m - 1 schedules (m = hf_family_size(f)), within o->conflicts conflicts.
 * If it finds one, its redundant schedules are dropped and it replaces the contents of @p f
 * (HF_EXACT_IMPROVED, possibly by more than one schedule); if it proves there is none, @p f
 * is a smallest family (HF_EXACT_MINIMAL) and unchanged; otherwise HF_EXACT_EXHAUSTED and @p f
 * is unchanged. The family is checked first as hf_verify does (HF_ESCHEDULE, HF_EMISMATCH when
 * it is not d-hitting). o->start is ignored. @p result may be NULL. Errors as hf_exact_solve,
 * progress and HF_EABORTED as there; on error @p f is unchanged. */
HF_API HF_NODISCARD hf_status hf_exact_remove_one(const hf_poset *p, hf_family *f,
                                                  const hf_exact_options *o,
                                                  hf_exact_verdict *verdict,
                                                  hf_exact_result *result, hf_error *err);

#ifdef __cplusplus
}
#endif

#endif /* HITFAM_EXACT_H */
