/* hitfam: online scheduling. A test harness asks, at every step of a run, which pending event to
 * run next, while the program reveals its events as it goes (docs/online.md has the proofs). */
#ifndef HITFAM_ONLINE_H
#define HITFAM_ONLINE_H

#include <hitfam/hitfam.h>

#ifdef __cplusplus
extern "C" {
#endif

/** An online scheduling session: it spans runs of one program. Not thread-safe.
 *
 * Protocol of a run: hf_online_begin_run; post every root (hf_online_post with parent
 * HF_NO_EVENT) before the first hf_online_next; then, while hf_online_pending is non-zero, call
 * hf_online_next, run the event it returns, and post that event's children (parent = that
 * event) before calling hf_online_next again; then hf_online_end_run. hf_online_next marks the
 * event it returns *running* and the previously running event *done*: an event's children must
 * all be posted while it runs, which is what an event loop does (a handler posts its
 * callbacks). The events of one run form a forest; the schedule played is a linear extension of
 * it. Events of different runs are matched by their path of labels: an event is identified by
 * its parent's identity, its rank among its siblings (the order its parent posted them in,
 * from 0) and its label. The identified events of all runs form the session's *union forest*, whose
 * events
 * ("nodes") have ids 0, 1, ... in order of first appearance, stable across runs. */
typedef struct hf_online hf_online;

/** How runs are scheduled. Values are pinned. */
typedef enum hf_online_strategy {
    HF_ONLINE_AUTO = 0,       /**< dfs for d <= 2, doubletree for d = 3, learn for d = 4 */
    HF_ONLINE_DFS = 1,        /**< d <= 2: the two depth-first orders, 2 runs (1 for a chain) */
    HF_ONLINE_DOUBLETREE = 2, /**< d <= 3: the double-tree rows played online, at most 4k + 1
                                   runs for k the height of the forest binarized by gadgets
                                   weighed as offline doubletree's (on a static program its
                                   family exactly; docs/online.md) */
    HF_ONLINE_LEARN = 3       /**< d <= 4: replay the offline family of the union forest seen
                                   so far until every admissible tuple of it is hit */
} hf_online_strategy;

/** The strategy's name ("auto", "dfs", "doubletree", "learn"), or NULL for an unknown value. */
HF_API const char *hf_online_strategy_name(hf_online_strategy s);
/** Parse a strategy name. HF_ENOTFOUND for an unknown name. */
HF_API HF_NODISCARD hf_status hf_online_strategy_from_name(const char *name, hf_online_strategy *s);

/** Options of hf_online_new. Initialise with hf_online_options_init, then set fields. */
typedef struct hf_online_options {
    unsigned d;                  /**< tuple size, 1..4 (default 2) */
    hf_online_strategy strategy; /**< default HF_ONLINE_AUTO */
    hf_method learn_method;      /**< learn: the offline method of the union forest (default
                                      HF_METHOD_AUTO); while the union forest has fewer than d
                                      events, auto plans its n-tuples */
    uint64_t max_runs;           /**< hf_online_end_run says no more runs are needed once this
                                      many ran, whatever the strategy (default 100000; 0: none) */
    uint32_t size_hint;          /**< events a run is expected to have: hf_online_new reserves
                                      room for that many (run records, schedule, union forest,
                                      scheduling structures) instead of letting them grow as
                                      they come, which copies them; a run may still have more
                                      (default 0: no reservation; at most HF_MAX_EVENTS) */
    bool huge_pages;             /**< ask the system (Linux: madvise MADV_HUGEPAGE) to back the
                                      session's large arrays by 2 MiB pages, which makes the
                                      first run's fresh memory cheaper (fewer page faults); the
                                      memory still comes from the context's allocator, and the
                                      advice is dropped silently where it does not apply
                                      (default false: only the arrays that grow past 4 MiB are
                                      advised, moved by a copy into advised memory) */
} hf_online_options;

/** Defaults: d = 2, auto, learn with auto, max_runs 100000, no size hint, no huge pages. */
HF_API void hf_online_options_init(hf_online_options *o);

/** The strategy HF_ONLINE_AUTO resolves to for @p d (HF_ONLINE_AUTO itself if d is out of
 * range). */
HF_API hf_online_strategy hf_online_strategy_for(unsigned d);

/** Create a session. Errors: HF_EINVAL (NULL argument, d = 0 or above 4, unknown strategy,
 * size_hint above HF_MAX_EVENTS),
 * HF_EUNSUPPORTED (the strategy does not apply to d: dfs needs d <= 2, doubletree d <= 3),
 * HF_ENOMEM. @p ctx may be NULL. Caller owns `*out` (free with hf_online_free). */
HF_API HF_NODISCARD hf_status hf_online_new(hf_ctx *ctx, const hf_online_options *o,
                                            hf_online **out, hf_error *err);
/** Free a session. NULL is a no-op. */
HF_API void hf_online_free(hf_online *s);

/** The strategy the session plays (auto resolved). */
HF_API hf_online_strategy hf_online_strategy_of(const hf_online *s);

/** Start a run. HF_ESTATE if a run is open. The learn strategy chooses here which offline
 * schedule this run follows. O(1) for dfs and doubletree. */
HF_API HF_NODISCARD hf_status hf_online_begin_run(hf_online *s, hf_error *err);

/** Post an event of the open run. @p parent is HF_NO_EVENT for a root (only before the run's
 * first hf_online_next), else the running event (the one hf_online_next returned last). @p label
 * (may be NULL: no label) names the event, for matching across runs and for the names of the
 * union forest; it is copied. The event's handle, stored in `*event` (may be NULL), is its index
 * in the run, 0, 1, ... in posting order. Errors (nothing is posted): HF_EINVAL (NULL session,
 * a parent that is no event of the run, a label longer than HF_MAX_NAME bytes), HF_ESTATE (no
 * run open; a root after the first hf_online_next; a parent that is pending and has not run, or
 * that ran and is done), HF_ETOOLARGE (HF_MAX_EVENTS events in the run or union), HF_ENOMEM.
 * Amortised O(1 + |label|) (expected, with a hash table, for a child whose rank or label is not
 * the one the union forest first saw at its place). */
HF_API HF_NODISCARD hf_status hf_online_post(hf_online *s, uint32_t parent, const char *label,
                                             uint32_t *event, hf_error *err);

/** hf_online_post, also storing @p user with the event (hf_online_event_user returns it): what
 * an event loop needs to run the event (a callback's index or pointer bits), kept next to the
 * scheduler's own record of the event so that reading it after hf_online_next costs nothing. */
HF_API HF_NODISCARD hf_status hf_online_post_user(hf_online *s, uint32_t parent, const char *label,
                                                  uint64_t user, uint32_t *event, hf_error *err);

/** Post the @p n children of @p parent in one call: the same as n calls of hf_online_post_user
 * with labels[i] (@p labels may be NULL: no child labelled; an entry may be NULL) and users[i]
 * (@p users may be NULL: 0 for each), in that order, so the children get the consecutive handles
 * `*first`, `*first` + 1, ... (@p first may be NULL). A harness may mix it with hf_online_post and
 * hf_online_post_user for the same parent (ranks continue from the children posted before).
 * Errors as hf_online_post, checked for every child before any is posted: on an error nothing is
 * posted. @p n = 0 posts nothing. Amortised O(n + the labels' lengths), with the usual cases (a
 * later run posting the children an earlier run posted at the same place, or the first run
 * posting new children with labels seen before or none) in one loop. */
HF_API HF_NODISCARD hf_status hf_online_post_children(hf_online *s, uint32_t parent, uint32_t n,
                                                      const char *const *labels,
                                                      const uint64_t *users, uint32_t *first,
                                                      hf_error *err);

/** One step of a run's loop in one call: post the @p n children of the running event (the roots
 * before the run's first next) as hf_online_post_children, then choose the next event as
 * hf_online_next, storing it in `*event` and its user value in `*user` (may be NULL). When no
 * event is pending, the run is over: `*event` is HF_NO_EVENT (and `*user` 0), the running event
 * becomes done, and the status is HF_OK; end the run with hf_online_end_run. A run's loop is then
 * `step(roots); while (event != HF_NO_EVENT) { run it; step(its children); }`. Errors: those of
 * hf_online_post_children (nothing is posted and the running event stays running) and of
 * hf_online_next; HF_EINVAL for a NULL session or @p event. hitfam/online_inline.h has the same
 * call as a static inline function, hf_online_step_fast, whose usual depth-first or double-tree
 * step costs no call. */
HF_API HF_NODISCARD hf_status hf_online_step(hf_online *s, uint32_t n, const char *const *labels,
                                             const uint64_t *users, uint32_t *event, uint64_t *user,
                                             hf_error *err);

/** The label id that says "no label" to hf_online_step_ids. */
#define HF_ONLINE_NO_LABEL 0x7fffffffu

/** The id of @p label in `*id`, interned in the session if it was not yet: a number the session
 * keeps for its life, which hf_online_step_ids takes in place of the string. A harness that
 * passes the same few labels again and again interns each once, and its steps then compare
 * numbers instead of strings. Interning a label changes no schedule. Errors: HF_EINVAL (NULL
 * session, label or @p id; a label longer than HF_MAX_NAME bytes), HF_ENOMEM (nothing
 * interned). O(|label|) expected. */
HF_API HF_NODISCARD hf_status hf_online_label_id(hf_online *s, const char *label, uint32_t *id,
                                                 hf_error *err);

/** hf_online_step with the children's labels given by ids of hf_online_label_id: @p label_ids
 * may be NULL (no child labelled), an entry HF_ONLINE_NO_LABEL leaves that child unlabelled. The
 * same events, user values, schedules, results and errors as hf_online_step with the labels the
 * ids stand for; an id this session did not give is HF_EINVAL, with nothing posted.
 * hitfam/online_inline.h has it as a static inline function too, hf_online_step_ids_fast. A
 * later run's step whose children are those of their union node's block compares each child's
 * label id with one number: O(n) instead of O(n + the labels' lengths). */
HF_API HF_NODISCARD hf_status hf_online_step_ids(hf_online *s, uint32_t n,
                                                 const uint32_t *label_ids, const uint64_t *users,
                                                 uint32_t *event, uint64_t *user, hf_error *err);

/** Number of posted events of the open run that have not been returned by hf_online_next (0 when
 * no run is open). */
HF_API uint32_t hf_online_pending(const hf_online *s);

/** The pending event to run now, in `*event`: it becomes the running event, and the event that
 * was running becomes done. Errors: HF_ESTATE (no run open, or nothing pending: the run is over
 * and needs hf_online_end_run; the event that was running is done then too, as after a step that
 * found nothing pending, so its children can no longer be posted), HF_EINVAL (NULL argument),
 * HF_ENOMEM. Amortised O(1) for dfs and doubletree, O(log pending) for learn. */
HF_API HF_NODISCARD hf_status hf_online_next(hf_online *s, uint32_t *event, hf_error *err);

/** What hf_online_end_run reports. */
typedef struct hf_online_run_result {
    bool more;             /**< another run is needed for d-coverage of what has been seen */
    uint64_t runs;         /**< runs ended so far (this one included) */
    uint64_t bound;        /**< the strategy's proved bound on the runs of the whole session,
                                computed from what has been seen (docs/online.md); learn: the
                                runs so far plus those its current plan still holds */
    uint32_t events;       /**< events of this run */
    uint32_t nodes;        /**< events of the union forest */
    bool changed;          /**< this run saw events no earlier run saw, or missed some */
    uint64_t tuples;       /**< learn: admissible d-tuples of the union forest (0 otherwise) */
    uint64_t tuples_hit;   /**< learn: those hit by some run */
    uint64_t tuples_apart; /**< learn: those set aside unhit: a run aimed at the tuple and the
                                program did not produce it in that order, or its events never
                                ran in one same run (docs/online.md, the stopping rule) */
} hf_online_run_result;

/** Close the open run and say whether another is needed. Errors: HF_ESTATE (no run open, or
 * events still pending: a run plays all its events), HF_ETOOLARGE (learn: the union forest is too
 * large for the coverage bookkeeping, see HF_ONLINE_LEARN_MAX_BITS), HF_ENOMEM, and the offline
 * generator's errors (learn). After HF_ESTATE for pending events the run stays open and unchanged
 * (run them, then end it; children posted after the refusal take the ranks after their
 * siblings'); after the other errors it is closed and recorded, and `r->more` is true only
 * for HF_ENOMEM (learn builds its plan again, doubletree weighs its gadgets again, when the next
 * run ends). @p r may be NULL. dfs and doubletree: O(events), and doubletree at d = 3 O(union
 * events) after a run in which the union forest grew (its gadgets weighed); learn: the offline
 * family of the union forest is generated again when the forest changed, and every earlier run is
 * replayed into the coverage bookkeeping. */
HF_API HF_NODISCARD hf_status hf_online_end_run(hf_online *s, hf_online_run_result *r,
                                                hf_error *err);

/** Largest coverage bitset the learn strategy allocates, in bits (as methods random and greedy:
 * n^(d-1) * 64 * ceil(n / 64) for n union events; at d = 3 about 2,000 events). */
#define HF_ONLINE_LEARN_MAX_BITS ((uint64_t)1 << 33)

/** Strategy learn takes, among the schedules of the offline family it has not followed yet, the
 * one hitting the most open tuples when the family has at most this many schedules, and the next
 * one (in the family's order) that hits an open tuple otherwise, so that choosing costs one count
 * per schedule and per growth of the union forest. */
#define HF_ONLINE_LEARN_GREEDY 256u

/** Number of runs ended so far. */
HF_API size_t hf_online_runs(const hf_online *s);
/** The schedule played in run @p run (0-based, ended runs only) as union-forest node ids in the
 * order they ran; its length in `*len`. Owned by the session, valid until it is freed. NULL
 * (and `*len` 0) for a run out of range. */
HF_API const uint32_t *hf_online_schedule(const hf_online *s, size_t run, uint32_t *len);

/** Number of events of the open (or last) run. */
HF_API uint32_t hf_online_run_events(const hf_online *s);
/** The union-forest node of event @p event of the open (or last) run, HF_NO_EVENT if out of
 * range. */
HF_API uint32_t hf_online_event_node(const hf_online *s, uint32_t event);

/** The value stored with event @p event of the open (or last) run by hf_online_post_user (0 when
 * posted by hf_online_post or out of range). */
HF_API uint64_t hf_online_event_user(const hf_online *s, uint32_t event);

/** Number of nodes of the union forest. */
HF_API uint32_t hf_online_nodes(const hf_online *s);
/** The parent node of @p node, HF_NO_EVENT for a root or out of range. */
HF_API uint32_t hf_online_node_parent(const hf_online *s, uint32_t node);
/** The label of @p node (owned by the session), NULL when it has none or is out of range. */
HF_API const char *hf_online_node_label(const hf_online *s, uint32_t node);
/** The name of @p node: its path of labels from its root, separated by '/'. Each step is the
 * label (with '\\', '/' and '#' escaped by a backslash), followed by `#k` when its rank k among
 * its siblings is not 0; an unlabelled event's step is `#k` whatever k. Distinct nodes have
 * distinct names. Written into @p buf of
 * @p cap bytes (truncated, always NUL-terminated when cap > 0); returns the length the whole
 * name needs, without the NUL. O(depth + |name|). */
HF_API size_t hf_online_node_name(const hf_online *s, uint32_t node, char *buf, size_t cap);

/** The union forest as a poset: event k is node k, named as hf_online_node_name, an edge from
 * each node's parent. Caller owns `*out`. Errors: HF_ENOMEM, HF_ETOOLARGE (a name longer than
 * HF_MAX_NAME). O(sum of the names' lengths). */
HF_API HF_NODISCARD hf_status hf_online_poset(const hf_online *s, hf_poset **out, hf_error *err);

/** What hf_online_simulate reports. */
typedef struct hf_online_sim_result {
    uint64_t runs;  /**< runs played (schedules handed to the sink) */
    uint64_t bound; /**< the strategy's bound (hf_online_run_result.bound after the last run) */
    hf_online_strategy strategy; /**< the strategy played (auto resolved) */
} hf_online_sim_result;

/** Simulate the online setting on the forest @p p: each run posts the roots (in id order), then
 * an event's children (in id order, labelled by their names) when the session returns it, and
 * nothing else, so the strategy sees an event only once its parent has run. Runs continue while
 * hf_online_end_run asks for more (at most @p o->max_runs). Each run's schedule, as ids of @p p,
 * goes to @p sink; the schedules together form a d-hitting family of @p p (docs/online.md).
 * Errors: HF_EUNSUPPORTED (@p p is not a forest: in-forests and other orders have events with
 * several predecessors, which no online run reveals), HF_ETOOLARGE (after a run, the strategy's
 * bound times the number of events exceeds HF_GEN_DEFAULT_MAX_NAMES, as hf_generate refuses such
 * families), errors of hf_online_new and of the session, the sink's status. @p r may be NULL. The
 * session is made with the poset's context. */
HF_API HF_NODISCARD hf_status hf_online_simulate(const hf_poset *p, const hf_online_options *o,
                                                 hf_sink sink, hf_online_sim_result *r,
                                                 hf_error *err);

/** Strategy learn, on a program whose events depend on the schedule: the repair runs that may
 * aim at one admissible tuple and miss it before it is set aside. Each miss teaches the next
 * plan which events must keep their place before the handler that did not post the tuple's
 * missing event (docs/online.md, repair runs). */
#define HF_ONLINE_LEARN_REPAIRS 4u

/** Strategy learn: open tuples are taken out of the coverage bookkeeping for repair runs this many
 * at a time. */
#define HF_ONLINE_LEARN_BATCH 256u

#ifdef __cplusplus
}
#endif

#endif /* HITFAM_ONLINE_H */
