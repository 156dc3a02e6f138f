/* hitfam: exhaustive and bounded enumeration of schedules: every linear extension, one schedule
 * per Mazurkiewicz trace, every schedule with at most K preemptions; and their exact counts. */
#ifndef HITFAM_ENUM_H
#define HITFAM_ENUM_H

#include <stdio.h> /* before gmp.h, which declares its FILE functions only after it */

#include <gmp.h>

#include <hitfam/hitfam.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Which schedules an enumeration gives. Values are pinned. */
typedef enum hf_enum_mode {
    /** Every linear extension of the order, each exactly once. */
    HF_ENUM_ALL = 0,
    /** One linear extension per Mazurkiewicz trace, each trace exactly once. Two linear
     * extensions are equivalent (one trace) when they order every conflicting pair
     * (hf_poset_conflict) alike. The schedule given for a trace is its lexicographically least
     * member (comparing event ids position by position). Without object labels every unordered
     * pair conflicts, and the traces are the linear extensions. */
    HF_ENUM_TRACES = 1,
    /** Every linear extension with at most hf_enum_options.preemptions preemptions, each exactly
     * once. Events run by threads (hf_poset_thread; an event without a thread is a thread of its
     * own). A thread is runnable after a position when one of its events that has not run yet
     * has all its predecessors run. A preemption is a switch between consecutive positions from
     * an event of thread t to an event of another thread while t is still runnable. When the
     * events of each thread form a chain (the usual reading of thread labels) t is runnable
     * exactly when its next event is enabled. */
    HF_ENUM_PREEMPTIONS = 2,
    /** Every linear extension with at most hf_enum_options.delays delays, each exactly once
     * (delay bounding: Emmi, Qadeer and Rakamaric, POPL 2011). Threads as for
     * HF_ENUM_PREEMPTIONS, numbered in one cyclic order: the threads of hf_poset_thread,
     * 0..T-1, then an event v without a thread as thread T + v. A deterministic round-robin
     * scheduler runs the last event's thread while it is runnable, and otherwise the first
     * runnable thread after it in the cyclic order (the first from thread 0 before the first
     * event). Running instead the thread that comes after j other runnable threads in the
     * cyclic order, counted from the scheduler's own pick, costs j delays; which of a thread's
     * enabled events runs is free. With 0 delays the schedule is the scheduler's own (one, when
     * the events of each thread form a chain). */
    HF_ENUM_DELAYS = 3
} hf_enum_mode;

/** Default work bound of hf_enum_count (see hf_enum_options.max_work): some seconds for each of
 * its two phases. */
#define HF_ENUM_DEFAULT_WORK ((uint64_t)1 << 28)
/** Largest number of states (down-set, and for preemptions the last thread and the preemptions
 * spent) the counting dynamic programs of hf_enum_count keep before giving up with
 * HF_ETOOLARGE. */
#define HF_ENUM_MAX_STATES 4000000u

/** Options of an enumeration. Initialise with hf_enum_options_init, then set fields. */
typedef struct hf_enum_options {
    hf_enum_mode mode;    /**< default HF_ENUM_ALL */
    uint32_t preemptions; /**< K of HF_ENUM_PREEMPTIONS (default 0); ignored by other modes */
    uint64_t limit;       /**< stop after this many schedules (hf_enum_next then says
                               HF_ENUM_LIMIT if more would follow); 0 (default): no limit */
    uint64_t max_work;    /**< hf_enum_count only: the steps each of its two phases may take
                               (default HF_ENUM_DEFAULT_WORK): the enumeration (a step is one
                               event examined or one order test), then if that has not
                               finished the dynamic program (an addition to its table counts
                               32 steps, as it costs some 32 times more). 0: no bound, the
                               enumeration runs to its end */
    uint32_t delays;      /**< K of HF_ENUM_DELAYS (default 0); ignored by other modes */
} hf_enum_options;

/** Defaults: all linear extensions, no preemptions or delays, no limit, max_work
 * HF_ENUM_DEFAULT_WORK. Always initialise with this function: fields may be added at the end in
 * later versions. */
HF_API void hf_enum_options_init(hf_enum_options *o);

/** An enumeration in progress over one order (opaque). Not thread-safe; several enumerations
 * may run over one order at once. */
typedef struct hf_enum hf_enum;

/** What hf_enum_next did. Values are pinned. */
typedef enum hf_enum_step {
    HF_ENUM_SCHEDULE = 0, /**< the next schedule was written to the caller's buffer */
    HF_ENUM_DONE = 1,     /**< every schedule has been given; nothing written */
    HF_ENUM_LIMIT = 2,    /**< hf_enum_options.limit schedules were given and more would
                               follow; nothing written */
    HF_ENUM_INVALID = 3   /**< a NULL enumeration, or a NULL buffer for an order with events */
} hf_enum_step;

/** Start enumerating the schedules of @p p that @p o selects (NULL: the defaults). All memory is
 * taken here: O(n) words (plus the poset, which must outlive the enumeration). The caller owns
 * `*out` (free with hf_enum_free). Errors (`*out` NULL): HF_EINVAL (NULL @p p or @p out, a
 * mode that is not an hf_enum_mode), HF_ENOMEM. O(n + e). */
HF_API HF_NODISCARD hf_status hf_enum_new(const hf_poset *p, const hf_enum_options *o,
                                          hf_enum **out, hf_error *err);

/** Write the next schedule (n event ids) into @p schedule and return HF_ENUM_SCHEDULE, or say
 * that the enumeration is over (HF_ENUM_DONE, HF_ENUM_LIMIT; it then stays over). An order of no
 * events has one schedule, the empty one. Never allocates. Cost per schedule, n events, e Hasse
 * edges:
 * - HF_ENUM_ALL: amortised O(n) (the Varol-Rotem adjacent-transposition method; see
 *   docs/enum.md), of which O(n) is copying the schedule out;
 * - HF_ENUM_PREEMPTIONS: O(n^2 + e) (depth-first search in which every prefix completes);
 * - HF_ENUM_DELAYS: O(n^2 + n t + e), t the threads (the same search, the delays of every
 *   thread counted in one walk over the threads per position);
 * - HF_ENUM_TRACES: O(n^2 (n^2 + e)) worst case, O(n^2 + e) without object labels
 *   (depth-first search over lexicographically least trace members; each prefix is checked to
 *   complete, so that no search ends without a schedule). */
HF_API hf_enum_step hf_enum_next(hf_enum *e, uint32_t *schedule);

/** Number of schedules hf_enum_next has given so far. 0 for NULL. */
HF_API uint64_t hf_enum_given(const hf_enum *e);

/** Free an enumeration. NULL is a no-op. */
HF_API void hf_enum_free(hf_enum *e);

/** Enumerate into @p sink (every schedule the options select, up to the limit). The number given
 * is stored in `*given` (may be NULL), and `*more` (may be NULL) says whether the limit stopped
 * it before the end. Errors: as hf_enum_new, the sink's own status (schedules given so far
 * are counted in `*given`), and HF_EABORTED when the context's progress callback stops it (it
 * is called with task "enum" and the schedules given every 2^16 steps of the search). */
HF_API HF_NODISCARD hf_status hf_enum_run(const hf_poset *p, const hf_enum_options *o, hf_sink sink,
                                          uint64_t *given, bool *more, hf_error *err);

/** The exact number of schedules the options select, into @p out (initialised by the caller):
 * the number an enumeration without a limit gives (o->limit is ignored). HF_ENUM_ALL:
 * hf_count_linear_extensions (hitfam/count.h), and when it refuses a wide order, enumeration
 * within o->max_work steps. HF_ENUM_TRACES, HF_ENUM_PREEMPTIONS and HF_ENUM_DELAYS (and those
 * that reduce to all linear extensions: traces without objects, preemptions without threads or
 * with K >= n - 1, which are counted as HF_ENUM_ALL): enumeration within o->max_work steps,
 * then, if it has not finished, dynamic programming over down-sets within o->max_work steps and
 * HF_ENUM_MAX_STATES states: for preemptions and delays over (down-set, last thread, preemptions
 * or delays spent), O(states * (n + e)) time (O(states * (n + e + t)) for delays, t the threads);
 * for traces an inclusion-exclusion over the sets of pairwise non-conflicting events that can end a
 * down-set (docs/enum.md), O(states * (n + e + such sets)). With the default bound each phase takes
 * some seconds at most (5 s for traces of 8 threads of 6 events on a loaded 2-core machine).
 * Errors: HF_EINVAL, HF_ENOMEM, HF_ETOOLARGE (with a message saying which bounds were passed; never
 * a wrong number), HF_EABORTED (the context's progress callback, task "count", said stop). */
HF_API HF_NODISCARD hf_status hf_enum_count(const hf_poset *p, const hf_enum_options *o, mpz_t out,
                                            hf_error *err);

/** The name of a mode for headers and tables: "enum", "traces", "preemptions-K" or "delays-K"
 * (K from @p o) written into @p buf (@p cap bytes, at least 32); returns @p buf, or NULL for a bad
 * mode or buffer. */
HF_API const char *hf_enum_method_name(const hf_enum_options *o, char *buf, size_t cap);

#ifdef __cplusplus
}
#endif

#endif /* HITFAM_ENUM_H */
