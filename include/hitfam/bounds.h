/* hitfam: certified lower bounds on the size of d-hitting families, each with what proves it.
 * A topic header beside hitfam.h and exact.h; the proofs are in docs/bounds.md. */
#ifndef HITFAM_BOUNDS_H
#define HITFAM_BOUNDS_H

#include <hitfam/hitfam.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Default conflict budget of hf_bound_compute over all its solver calls: a fraction of a
 * second on the orders it tries. */
#define HF_BOUND_DEFAULT_CONFLICTS 20000u
/** Default size of the largest sub-order hf_bound_compute gives the solver. */
#define HF_BOUND_DEFAULT_EVENTS 12u

/** What a bound rests on (docs/bounds.md proves each). */
typedef enum hf_bound_kind {
    HF_BOUND_EMPTY = 0,     /**< no events: 0 */
    HF_BOUND_ONE = 1,       /**< some event: 1 */
    HF_BOUND_PAIR = 2,      /**< an incomparable pair (d >= 2): 2; events: the pair */
    HF_BOUND_CHAIN = 3,     /**< a chain of c events all incomparable to one more event (d >= 3):
                                 c + 1; events: the chain, then the free event */
    HF_BOUND_FACTORIAL = 4, /**< an antichain of d events: d!; events: the antichain */
    HF_BOUND_ANTICHAIN = 5, /**< an antichain of w events (d >= 3): the proved SCAN(3, w) table
                                 (w <= 8) or the Sperner bound; events: the antichain */
    HF_BOUND_SAT = 6        /**< the solver refuted a family of value - 1 schedules for the
                                 order induced on `events` */
} hf_bound_kind;

/** Options of hf_bound_compute. Initialise with hf_bound_options_init. */
typedef struct hf_bound_options {
    unsigned d;          /**< 1..HF_MAX_D (default 3) */
    uint64_t conflicts;  /**< solver budget over all calls, counted in conflicts (learned
                              clauses): the same input and budget give the same bound
                              everywhere. 0, the default: HF_BOUND_DEFAULT_CONFLICTS */
    uint32_t max_events; /**< largest sub-order handed to the solver (0, the default:
                              HF_BOUND_DEFAULT_EVENTS; at most 64), except an embedded
                              complete binary tree, which may have up to 15 events */
    bool no_sat;         /**< only the combinatorial bounds (also without the solver in the
                              build) */
} hf_bound_options;

/** Defaults: d = 3, conflicts 0 (HF_BOUND_DEFAULT_CONFLICTS), max_events 0
 * (HF_BOUND_DEFAULT_EVENTS), the solver on when the build has it. */
HF_API void hf_bound_options_init(hf_bound_options *o);

/** The best bound found and its certificate. Free with hf_bound_free. */
typedef struct hf_bound {
    uint64_t value;      /**< every d-hitting family of the order has at least this many
                              schedules */
    hf_bound_kind kind;  /**< what proves it */
    unsigned d;          /**< the d asked */
    uint32_t *events;    /**< the certificate's events (see hf_bound_kind), ids of the order */
    size_t event_count;  /**< their number */
    uint64_t conflicts;  /**< HF_BOUND_SAT: conflicts of the refuting call */
    uint64_t spent;      /**< conflicts of every solver call made */
    unsigned calls;      /**< solver calls made */
    unsigned sub_orders; /**< sub-orders given to the solver */
    hf_ctx *ctx;         /**< internal: the allocator of `events` */
} hf_bound;

/** A lower bound on every d-hitting family of @p p, the largest of: 1 (any event), 2 (an
 * incomparable pair, d >= 2), c + 1 (a chain of c events all incomparable to one event,
 * d >= 3), d! (an antichain of d events), the proved minimum SCAN(3, w) or the Sperner bound
 * (the smallest m with C(m - 1, floor((m - 1) / 2)) >= w - 1) for an antichain of w events
 * (d >= 3), and, with the solver, r + 1 when it refutes a d-hitting family of r schedules for
 * the order induced on a sub-order of at most o->max_events events (the whole order when
 * small; for forests and in-forests also the top events, an embedded complete binary tree of
 * the tree's Horton-Strahler height, the largest small subtrees, a longest path with one side
 * branch per event; for other orders the first and last events in topological order).
 * Antichains examined: the maximal events, the minimal events and the largest rank level (a
 * largest antichain for forests and in-forests). On success the caller owns `*out`
 * (hf_bound_free). Errors: HF_EINVAL (NULL argument, bad d, max_events above 64); HF_ENOMEM.
 * The solver allocates with the C++ allocator, outside the context's. Time: O(n) for forests,
 * O(n (n + e)) otherwise (e Hasse edges), plus the solver's budget. */
HF_API HF_NODISCARD hf_status hf_bound_compute(const hf_poset *p, const hf_bound_options *o,
                                               hf_bound **out, hf_error *err);

/** Free a bound (NULL allowed). */
HF_API void hf_bound_free(hf_bound *b);

/** Short name of a kind: "empty", "one", "pair", "chain", "factorial", "antichain", "sat". */
HF_API const char *hf_bound_kind_name(hf_bound_kind k);

/** How @p b was obtained, in words, into buf (NUL-terminated, truncated to size), such as
 * "SAT: no 6-schedule family for the sub-order of the 12 events a, b, ...; 1,234 conflicts" or
 * "antichain of 5 events: SCAN(3, 5) = 7". At most 8 event names are listed. Returns the
 * length the full text would have. */
HF_API size_t hf_bound_describe(const hf_poset *p, const hf_bound *b, char *buf, size_t size);

#ifdef __cplusplus
}
#endif

#endif /* HITFAM_BOUNDS_H */
