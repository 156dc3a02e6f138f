/* hitfam: hitting families of schedules for partial orders of events.
 * The one supported public header: include only this one (it pulls in the topic headers). */
#ifndef HITFAM_HITFAM_H
#define HITFAM_HITFAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <hitfam/version.h>

#if defined(HF_BUILDING_LIBRARY) && defined(__GNUC__)
#define HF_API __attribute__((visibility("default")))
#else
#define HF_API
#endif

/* On every call that returns an hf_status: GCC and Clang warn when the caller drops the status
 * (a failed call must not pass for a successful one). */
#if defined(__GNUC__)
#define HF_NODISCARD __attribute__((warn_unused_result))
#else
#define HF_NODISCARD
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------------------------ */
/* Version                                                                                    */

/** The library's version, "MAJOR.MINOR.PATCH" (may differ from HF_VERSION_STRING, which is the
 * version of the headers the caller was compiled against). Static storage, never freed. */
HF_API const char *hf_version_string(void);

/* ------------------------------------------------------------------------------------------ */
/* Status codes and errors                                                                    */

/** Status of every fallible call. The values are pinned: they never change meaning and are never
 * reused, so callers may store them. */
typedef enum hf_status {
    HF_OK = 0,            /**< success */
    HF_EINVAL = 1,        /**< invalid argument (NULL where not allowed, id out of range, bad d) */
    HF_ENOMEM = 2,        /**< an allocation failed; every object is left as it was before */
    HF_ECYCLE = 3,        /**< the "before" constraints contain a cycle */
    HF_ESELFLOOP = 4,     /**< an event is constrained to happen before itself */
    HF_EDUPLICATE = 5,    /**< an event name is given twice where names must be unique */
    HF_ENOTFOUND = 6,     /**< an event name is unknown */
    HF_ETOOLARGE = 7,     /**< the input exceeds a documented limit (see HF_MAX_*) */
    HF_EPARSE = 8,        /**< the input text is not well-formed */
    HF_EIO = 9,           /**< reading or writing a stream failed */
    HF_EUNSUPPORTED = 10, /**< the requested method does not apply to this order or d */
    HF_ESCHEDULE = 11,    /**< a schedule is not a linear extension of the order */
    HF_ESTATE = 12,       /**< the call is not allowed in the object's current state */
    HF_EABORTED = 13,     /**< a sink or callback asked to stop */
    HF_EMISMATCH = 14     /**< a family does not belong to the given order (event count) */
} hf_status;

/** A short English description of @p status ("out of memory", ...). Static storage. Unknown
 * values give "unknown status". */
HF_API const char *hf_strerror(hf_status status);

/** Where and why something failed. Filled by calls that take an `hf_error *` (which may be NULL).
 * `line` and `column` are 1-based positions in the input being read, 0 when not applicable. */
typedef struct hf_error {
    int line;
    int column;
    char text[320];
} hf_error;

/* ------------------------------------------------------------------------------------------ */
/* Context: allocator and log callback                                                        */

/** Allocation functions. `free` must accept NULL. All three receive `user`. */
typedef struct hf_allocator {
    void *(*malloc)(size_t size, void *user);
    void *(*realloc)(void *ptr, size_t size, void *user);
    void (*free)(void *ptr, void *user);
    void *user;
} hf_allocator;

/** Severity of a log message. */
typedef enum hf_log_level { HF_LOG_DEBUG = 0, HF_LOG_INFO = 1, HF_LOG_PROGRESS = 2 } hf_log_level;

/** Log callback: the library never prints; long computations report progress here. */
typedef void (*hf_log_fn)(hf_log_level level, const char *message, void *user);

/** An optional context. Every constructor takes an `hf_ctx *` that may be NULL (the C library's
 * malloc/realloc/free and no logging). The context must outlive every object created with it.
 * It is never modified after creation by the library, so it may be shared between threads. */
typedef struct hf_ctx hf_ctx;

/** Create a context. @p alloc may be NULL (the C allocator); it is copied. @p log may be NULL.
 * On success the caller owns `*out` (free with hf_ctx_free). */
HF_API HF_NODISCARD hf_status hf_ctx_new(const hf_allocator *alloc, hf_log_fn log, void *log_user,
                                         hf_ctx **out);
/** Free a context. NULL is a no-op. */
HF_API void hf_ctx_free(hf_ctx *ctx);

/** Progress of a long computation, as hf_progress_fn sees it. */
typedef struct hf_progress {
    const char *task; /**< what runs: "gen" (schedules written), "greedy" (schedules chosen, or
                           rounds of its local search), "minimize" (rounds), "count" (units of
                           work), "verify" (first events of the prefixes), "enum" (schedules
                           given), "exact" (SAT conflicts spent of the budget), "hitprob"
                           (tuples, priority orders or samples of hf_hitprob_min) */
    uint64_t done;    /**< units of work done so far */
    uint64_t total;   /**< units in all, or 0 when unknown */
} hf_progress;

/** Progress and cancellation: called from the thread that runs the computation, at its natural
 * steps (each schedule written or chosen, each round, each block of work; never less often than
 * every few million elementary steps). Return true to go on, false to stop: the computation then
 * returns HF_EABORTED with a message naming the task, and every object is left as after any
 * other failure (freed, or as it was; schedules already given to a sink stay given). */
typedef bool (*hf_progress_fn)(const hf_progress *progress, void *user);

/** Set (or, with @p fn NULL, clear) the progress callback of @p ctx. Set it before the context is
 * shared between threads. HF_EINVAL for a NULL context. */
HF_API HF_NODISCARD hf_status hf_ctx_set_progress(hf_ctx *ctx, hf_progress_fn fn, void *user);

/* ------------------------------------------------------------------------------------------ */
/* Limits                                                                                     */

/** Maximum number of events of an order (ids are uint32_t; one id value is kept as a sentinel). */
#define HF_MAX_EVENTS 100000000u
/** Maximum number of constraints (hf_poset_builder_add_order calls, duplicates included) of one
 * order: the Hasse diagram's rows are indexed by 32-bit offsets. */
#define HF_MAX_ORDER_PAIRS 4294967295u
/** Largest d accepted anywhere (tuples of up to 8 events). */
#define HF_MAX_D 8u
/** Orders with at most this many events keep a bitset transitive closure (n*n bits, 128 MiB at
 * the limit) and answer order queries in O(1). Larger orders that are not forests answer by a
 * graph search, which is correct but O(n + edges) per query. Forests and in-forests always answer
 * in O(1) from DFS intervals. */
#define HF_CLOSURE_MAX_EVENTS 32768u
/** Longest accepted event name, in bytes. */
#define HF_MAX_NAME 4096u

/** The id that no event has. */
#define HF_NO_EVENT UINT32_MAX

/* ------------------------------------------------------------------------------------------ */
/* Posets: building                                                                           */

/** A finished partial order of events: immutable, safe to read from several threads at once. */
typedef struct hf_poset hf_poset;
/** A poset under construction. Not thread-safe. */
typedef struct hf_poset_builder hf_poset_builder;

/** Create an empty builder. @p ctx may be NULL. Caller owns `*out`. */
HF_API HF_NODISCARD hf_status hf_poset_builder_new(hf_ctx *ctx, hf_poset_builder **out);
/** Free a builder (whether or not it was finished). NULL is a no-op. */
HF_API void hf_poset_builder_free(hf_poset_builder *b);

/** Add an event named @p name (any NUL-terminated byte string, including "", at most HF_MAX_NAME
 * bytes; names are unique). Ids are dense and given in call order: the k-th added event has id k.
 * @p id may be NULL. Errors: HF_EDUPLICATE (the name exists; `*id` is then set to the existing
 * event's id), HF_ETOOLARGE, HF_ENOMEM, HF_ESTATE after finish. Amortised O(|name|). */
HF_API HF_NODISCARD hf_status hf_poset_builder_add_event(hf_poset_builder *b, const char *name,
                                                         uint32_t *id);

/** Find an event by name in a builder. HF_ENOTFOUND when absent. */
HF_API HF_NODISCARD hf_status hf_poset_builder_find(const hf_poset_builder *b, const char *name,
                                                    uint32_t *id);

/** Require that event @p before happens before event @p after. Duplicate and transitive
 * constraints are accepted and removed at finish. A self-loop is accepted here and reported by
 * finish (so that a reader can report it with the input's position). O(1) amortised. */
HF_API HF_NODISCARD hf_status hf_poset_builder_add_order(hf_poset_builder *b, uint32_t before,
                                                         uint32_t after);

/** Mark event @p id as a focus event (see hf_poset_focus). */
HF_API HF_NODISCARD hf_status hf_poset_builder_set_focus(hf_poset_builder *b, uint32_t id);

/** Name the thread (a chain of events known to run in sequence, such as one process's or one
 * actor's steps) that event @p id belongs to; NULL or "" clears it. Any NUL-terminated string of
 * at most HF_MAX_NAME bytes (else HF_ETOOLARGE); setting it again replaces it. Threads are not
 * checked here: method chains uses them as its chains and refuses a thread whose events are not
 * pairwise comparable. Errors: HF_EINVAL (NULL builder, id out of range), HF_ESTATE after
 * finish, HF_ENOMEM (the builder is then unchanged). Expected O(|thread|). */
HF_API HF_NODISCARD hf_status hf_poset_builder_set_thread(hf_poset_builder *b, uint32_t id,
                                                          const char *thread);

/** How an event uses the object it touches (hf_poset_builder_set_object). Values are pinned. */
typedef enum hf_access {
    HF_ACCESS_NONE = 0, /**< the event touches no object */
    HF_ACCESS_READ = 1, /**< it reads its object */
    HF_ACCESS_WRITE = 2 /**< it writes its object (the default of DOT `obj=` without `access=`) */
} hf_access;

/** Say that event @p id touches the shared object @p object (any NUL-terminated string of at
 * most HF_MAX_NAME bytes; NULL or "" clears it, with @p access HF_ACCESS_NONE) by reading or
 * writing it. Objects decide which unordered events conflict (hf_poset_conflict): the
 * partial-order samplers and trace enumeration use them. Setting it again replaces it.
 * Errors: HF_EINVAL (NULL builder, id out of range, an access that does not match: READ or
 * WRITE with an object, NONE without), HF_ETOOLARGE, HF_ESTATE after finish, HF_ENOMEM (the
 * builder is then unchanged). Expected O(|object|). */
HF_API HF_NODISCARD hf_status hf_poset_builder_set_object(hf_poset_builder *b, uint32_t id,
                                                          const char *object, hf_access access);

/** Validate and finish: reports a self-loop (HF_ESELFLOOP) or one cycle (HF_ECYCLE, the message
 * names its events in order), reduces the constraints to the Hasse diagram, computes the
 * topological order, the closure (if n <= HF_CLOSURE_MAX_EVENTS), and the forest views.
 * HF_ETOOLARGE when more than HF_MAX_ORDER_PAIRS constraints were added (duplicates
 * included).
 * On success the caller owns `*out` (free with hf_poset_free); the builder can only be freed.
 * Time O(n + e) for forests and in-forests; O(n * e / 64) otherwise; memory O(n + e), plus n*n
 * bits for the closure when kept (transitive reduction of larger orders works in blocks of
 * columns, n * 4096 bits at a time). */
HF_API HF_NODISCARD hf_status hf_poset_builder_finish(hf_poset_builder *b, hf_poset **out,
                                                      hf_error *err);

/** Free a poset. NULL is a no-op. */
HF_API void hf_poset_free(hf_poset *p);

/* ------------------------------------------------------------------------------------------ */
/* Posets: queries (all O(1) unless stated)                                                   */

/** Number of events n. */
HF_API uint32_t hf_poset_size(const hf_poset *p);
/** Name of event @p id (owned by the poset), or NULL if @p id is out of range. */
HF_API const char *hf_poset_name(const hf_poset *p, uint32_t id);
/** Find an event id by name. HF_ENOTFOUND when absent. Expected O(|name|), but for the first
 * lookup in an order read by the fast DOT reader, which places every name in a table then (O(n);
 * HF_ENOMEM when that table cannot be allocated, and the next lookup tries again). Safe to call
 * from several threads at once, like every query. */
HF_API HF_NODISCARD hf_status hf_poset_find(const hf_poset *p, const char *name, uint32_t *id);

/** Number of edges of the Hasse diagram (covering pairs). */
HF_API size_t hf_poset_hasse_edge_count(const hf_poset *p);
/** Hasse successors (events that @p id is covered by), sorted by id; count in `*count`. */
HF_API const uint32_t *hf_poset_hasse_succ(const hf_poset *p, uint32_t id, uint32_t *count);
/** Hasse predecessors (events that cover-precede @p id), sorted by id; count in `*count`. */
HF_API const uint32_t *hf_poset_hasse_pred(const hf_poset *p, uint32_t id, uint32_t *count);

/** A topological order of all events (an array of n ids owned by the poset). It is the smallest
 * in lexicographic id order among linear extensions: deterministic. */
HF_API const uint32_t *hf_poset_topological_order(const hf_poset *p);

/** Height: the number of events in a longest chain (0 for an empty order, 1 for an antichain). */
HF_API uint32_t hf_poset_height(const hf_poset *p);

/** True iff a < b strictly. O(1) for forests, in-forests and orders with a closure; otherwise a
 * graph search, O(n + e). Out-of-range ids give false. */
HF_API bool hf_poset_less(const hf_poset *p, uint32_t a, uint32_t b);
/** True iff a < b or b < a (false for a == b). Same cost as hf_poset_less. */
HF_API bool hf_poset_comparable(const hf_poset *p, uint32_t a, uint32_t b);
/** True iff the poset keeps a bitset closure (n <= HF_CLOSURE_MAX_EVENTS and not a forest). */
HF_API bool hf_poset_has_closure(const hf_poset *p);

/** Shape flags of an order (several may hold: an antichain is all of them). */
typedef enum hf_shape {
    HF_SHAPE_FOREST = 1u << 0,   /**< every event has at most one Hasse predecessor */
    HF_SHAPE_INFOREST = 1u << 1, /**< every event has at most one Hasse successor */
    HF_SHAPE_TREE = 1u << 2,     /**< a forest with exactly one minimal event */
    HF_SHAPE_CHAIN = 1u << 3,    /**< a total order (n <= 1 included) */
    HF_SHAPE_ANTICHAIN = 1u << 4 /**< no two events comparable (n = 0 included) */
} hf_shape;
/** The shape flags (a bitwise OR of hf_shape values). */
HF_API unsigned hf_poset_shape(const hf_poset *p);

/** In a forest: the parent of @p id (its one Hasse predecessor), or HF_NO_EVENT for a root or if
 * the order is not a forest. */
HF_API uint32_t hf_poset_parent(const hf_poset *p, uint32_t id);
/** In a forest: depth of @p id in edges (roots 0). In an in-forest: distance to its sink.
 * 0 for other orders. */
HF_API uint32_t hf_poset_depth(const hf_poset *p, uint32_t id);
/** In a forest: the number of events in the subtree of @p id (itself included); in an in-forest,
 * the number of events below or equal to @p id. 0 for other orders. */
HF_API uint32_t hf_poset_subtree_size(const hf_poset *p, uint32_t id);

/** Height in edges of the binary tree the tree methods work on: the forest (or the reversed
 * in-forest) under a virtual root when it has several roots, with every node of more than two
 * children split by a weight-balanced gadget of virtual events. The doubletree family has at
 * most 4 * this many schedules. HF_EUNSUPPORTED for orders that are neither forests nor
 * in-forests. O(n log n) time, O(n) memory. */
HF_API HF_NODISCARD hf_status hf_poset_tree_height(const hf_poset *p, uint32_t *height);

/** Events marked as focus events by hf_poset_builder_set_focus (DOT: `focus=true`), sorted by id.
 * NULL with `*count == 0` when none is marked (then every event is a focus event). */
HF_API const uint32_t *hf_poset_focus(const hf_poset *p, uint32_t *count);

/** Number of distinct thread names given to events (hf_poset_builder_set_thread, DOT
 * `thread=NAME`); 0 when no event has a thread. */
HF_API uint32_t hf_poset_thread_count(const hf_poset *p);
/** The thread of event @p id as an index in 0..hf_poset_thread_count()-1 (threads are numbered in
 * order of first appearance by event id), or HF_NO_EVENT if the event has none or @p id is out of
 * range. */
HF_API uint32_t hf_poset_thread(const hf_poset *p, uint32_t id);
/** Name of thread @p k (owned by the poset), or NULL if @p k is out of range. */
HF_API const char *hf_poset_thread_name(const hf_poset *p, uint32_t k);

/** Number of distinct objects events touch (hf_poset_builder_set_object, DOT `obj=NAME`); 0
 * when no event touches one. */
HF_API uint32_t hf_poset_object_count(const hf_poset *p);
/** The object event @p id touches, as an index in 0..hf_poset_object_count()-1 (numbered in order
 * of first appearance by event id), or HF_NO_EVENT if it touches none or @p id is out of range. */
HF_API uint32_t hf_poset_object(const hf_poset *p, uint32_t id);
/** Name of object @p k (owned by the poset), or NULL if @p k is out of range. */
HF_API const char *hf_poset_object_name(const hf_poset *p, uint32_t k);
/** How event @p id uses its object (HF_ACCESS_NONE when it touches none or is out of range). */
HF_API hf_access hf_poset_access(const hf_poset *p, uint32_t id);
/** True iff events @p a and @p b conflict: they are unordered (neither happens before the
 * other), and either no event of the order touches an object (then every unordered pair
 * conflicts), or both touch the same object and at least one writes it. Events that touch no
 * object in an order where others do conflict with nothing. Two schedules that order every
 * conflicting pair alike are equivalent (one Mazurkiewicz trace). O(1) as hf_poset_less. */
HF_API bool hf_poset_conflict(const hf_poset *p, uint32_t a, uint32_t b);
/** The number of unordered pairs {a, b} of events that conflict (hf_poset_conflict) into
 * `*count`: without objects, the pairs of unordered events; with objects, the unordered pairs
 * that touch one object with at least one write. Errors: HF_EINVAL (NULL @p p or @p count),
 * HF_ENOMEM. Forests and in-forests O(n + objects) by one pass over the DFS order; other orders
 * O(n * n / 64) over the closure. */
HF_API HF_NODISCARD hf_status hf_poset_conflict_count(const hf_poset *p, uint64_t *count,
                                                      hf_error *err);

/** The context the poset was built with (may be NULL). */
HF_API hf_ctx *hf_poset_ctx(const hf_poset *p);

/* ------------------------------------------------------------------------------------------ */
/* DOT input (Graphviz libcgraph)                                                             */

/** Read a poset from a DOT `digraph` held in memory (@p len bytes; need not be NUL-terminated).
 * Node IDs are event names (labels are ignored); `a -> b` means a happens before b. Accepts strict
 * and non-strict digraphs, subgraphs and clusters, edge chains, `{a b}` edge ends, ports,
 * attributes, quoted and UTF-8 names, duplicate and transitive edges, isolated nodes. A node
 * attribute `focus=true` (or 1/yes) marks a focus event; `thread=NAME` (any string, "" for
 * none) names the event's thread (hf_poset_builder_set_thread).
 * Event names (and attribute values) are exactly the strings Graphviz's own tools read: inside
 * double quotes only `\"` (a quote) and backslash-newline (nothing) are escapes, so `"x\\y"`
 * is the 4-byte name x\\y, distinct from `"x\y"`, and `"C:\new"` keeps its backslash; an
 * HTML-like ID `<a\>` is its text between the brackets. (As in Graphviz, a newline standing
 * alone between the opening quote or an escape and a quote or backslash is dropped.) Refused
 * (HF_EPARSE): names starting with `%` (Graphviz renames them), input Graphviz only warns about
 * (such as `12a`, which it would split in two), bare tokens longer than HF_MAX_NAME; and
 * (HF_ETOOLARGE) one edge chain of more than about 2,200 nodes or subgraphs nested more than about
 * 2,200 deep, beyond which Graphviz's parser overflows its fixed stack. Limits: libcgraph's parser
 * and error state are process-wide; hitfam serialises its own DOT reads with a lock and restores
 * libcgraph's error settings, but another thread calling libcgraph directly at the same time may
 * disturb them. libcgraph allocates with malloc, not through the context's allocator.
 * Plain DOT (one digraph of node and edge statements, node lists and chains, attribute lists and
 * defaults, bare, numeral and quoted IDs, comments) is read without libcgraph, in one pass, with
 * the same result, without the lock, and through the context's allocator; any other input is
 * read by libcgraph from the start (README, "Reading DOT fast"). */
HF_API HF_NODISCARD hf_status hf_dot_read_mem(hf_ctx *ctx, const char *data, size_t len,
                                              hf_poset **out, hf_error *err);
/** Read DOT from a stream (read to its end first). Same behaviour as hf_dot_read_mem;
 * HF_EIO when reading fails. */
HF_API HF_NODISCARD hf_status hf_dot_read_file(hf_ctx *ctx, FILE *in, hf_poset **out,
                                               hf_error *err);
/** Write @p p as a DOT digraph of its Hasse diagram to @p out: every event (with `focus=true`
 * and `thread=` when set), then every Hasse edge. Each name is written as hf_dot_write_name
 * does, so that Graphviz and hf_dot_read_mem read back exactly the same events. Errors:
 * HF_EINVAL (NULL argument), HF_EUNSUPPORTED (some name or thread cannot be written so that it
 * reads back as itself, see hf_dot_write_name; nothing is written then), HF_EIO, HF_ENOMEM.
 * O(n + e) plus the length of the names. */
HF_API HF_NODISCARD hf_status hf_dot_write(const hf_poset *p, FILE *out);

/** Write @p name as a DOT node ID that Graphviz reads back as exactly these bytes: bare when it
 * is a DOT identifier or numeral and no keyword, else in double quotes with `\"` for each quote
 * (backslashes stay as they are), else as an HTML-like ID `<name>` when its angle brackets nest.
 * HF_EUNSUPPORTED, with nothing written, for the few names no DOT ID reads back as: a leading
 * `%` (Graphviz renames such nodes), and, unless its angle brackets nest, an odd run of
 * backslashes before a quote, a newline or the end of the name, or a newline between a quote
 * or backslash pair and a quote or backslash. HF_EINVAL for NULL, HF_EIO, HF_ENOMEM. O(|name|). */
HF_API HF_NODISCARD hf_status hf_dot_write_name(FILE *out, const char *name);
/** As hf_dot_write_name, for an attribute value (a leading `%` is allowed there). */
HF_API HF_NODISCARD hf_status hf_dot_write_value(FILE *out, const char *value);
/** Whether hf_dot_write_name would write @p name: HF_OK, HF_EUNSUPPORTED (no DOT ID reads back
 * as it), HF_EINVAL (NULL), HF_ENOMEM. Writes nothing. O(|name|). */
HF_API HF_NODISCARD hf_status hf_dot_check_name(const char *name);
/** The same for an attribute value (hf_dot_write_value). */
HF_API HF_NODISCARD hf_status hf_dot_check_value(const char *value);

/* ------------------------------------------------------------------------------------------ */
/* Families and sinks                                                                         */

/** A schedule sink: generators call `put` once per schedule with an array of n event ids that is
 * only valid during the call. A non-zero return (any hf_status) stops the generator, which then
 * returns that status. */
typedef struct hf_sink {
    hf_status (*put)(void *user, const uint32_t *schedule, uint32_t n);
    void *user;
} hf_sink;

/** A family: m schedules over n events, stored in one block. */
typedef struct hf_family hf_family;

/** Create an empty family over @p n events. Caller owns `*out`. */
HF_API HF_NODISCARD hf_status hf_family_new(hf_ctx *ctx, uint32_t n, hf_family **out);
/** Free a family. NULL is a no-op. */
HF_API void hf_family_free(hf_family *f);
/** Append a copy of @p schedule (n ids). Not validated here: hf_verify checks schedules. Amortised
 * O(n). */
HF_API HF_NODISCARD hf_status hf_family_append(hf_family *f, const uint32_t *schedule);
/** Remove schedule @p index (later schedules move up by one). O(m * n). */
HF_API HF_NODISCARD hf_status hf_family_remove(hf_family *f, size_t index);
/** Number of schedules m. */
HF_API size_t hf_family_size(const hf_family *f);
/** Number of events n of each schedule. */
HF_API uint32_t hf_family_events(const hf_family *f);
/** Schedule @p index (n ids, owned by the family, valid until the family changes), or NULL. */
HF_API const uint32_t *hf_family_schedule(const hf_family *f, size_t index);
/** A sink that appends every schedule it receives to @p f (HF_EMISMATCH if n differs). */
HF_API hf_sink hf_family_sink(hf_family *f);

/* ------------------------------------------------------------------------------------------ */
/* Family text and JSON formats                                                               */

/** Output formats for families (docs/formats.md describes each byte). TEXT: names, one
 * schedule per line; JSON: one object; IDS: the text header with `format=ids`, a `# events`
 * line naming event index 0..n-1 (the order's event ids: the DOT file's node order, first
 * appearance), then one schedule per line as decimal indices; BIN: a binary layout (magic
 * `\x89HFB\r\n\x1a\n`, little-endian uint16 or uint32 indices, a trailer with the count and a
 * checksum). The readers detect each from its first bytes. */
typedef enum hf_format {
    HF_FORMAT_TEXT = 0,
    HF_FORMAT_JSON = 1,
    HF_FORMAT_IDS = 2,
    HF_FORMAT_BIN = 3
} hf_format;

/** What the header of a written family says. `method` may be NULL ("unknown"); `schedules` is
 * written only when `schedules_known` is true. */
typedef struct hf_family_header {
    unsigned d;
    const char *method;
    bool schedules_known;
    uint64_t schedules;
    uint64_t row_first; /**< a slice of a family (hf_gen_options.row_first): the written schedules
                             are rows row_first..row_last of it, counted from 1, and `schedules`
                             is the whole family's size (text `rows=A:B`, JSON `"rows": [A, B]`).
                             0: the whole family */
    uint64_t row_last;  /**< last row of the slice; 0 when unknown (text `rows=A:`, JSON
                             `"rows": [A, null]`) */
} hf_family_header;

/** A streaming family writer: text is one schedule per line after a `# hitfam VERSION ...` header
 * line; JSON is `{"hitfam": VERSION, "d": D, "method": M, "events": [...], "schedules": [...]}`;
 * ids and bin as hf_format says (docs/formats.md). Names that are not DOT identifiers or numerals
 * are written DOT-quoted. Each event's name (or index) is rendered once, at the first schedule
 * (or, when a generator knows the writer is behind its sink, on a second thread beside its own
 * preparation); schedules are assembled in a 1 MiB block and reach the stream with fwrite when it
 * fills and at hf_writer_close (the header goes to the stream at once, except bin's, which the
 * checksum covers), so a write error may first show at a later put or at the close. The library's
 * own generators may hand the writer a schedule as ranges of a few fixed sequences of the events
 * (doubletree does), which it writes from their renders with writev on the stream's file
 * descriptor after an fflush (the same bytes, in order with the rest; stdio's idea of the
 * stream's position, as ftell reads it, is then not kept up to date). */
typedef struct hf_writer hf_writer;

/** Create a writer of schedules of @p p to @p out (not closed by the writer). Writes the header.
 * Caller owns `*w`. */
HF_API HF_NODISCARD hf_status hf_writer_new(const hf_poset *p, FILE *out, hf_format format,
                                            const hf_family_header *header, hf_writer **w);
/** A sink writing to @p w. Each put checks that the schedule is a permutation of the events
 * (HF_ESCHEDULE otherwise) and writes it; HF_EIO when the stream fails; HF_ENOMEM when the first
 * schedule finds no memory for the rendered names (a later put tries again). */
HF_API hf_sink hf_writer_sink(hf_writer *w);
/** Number of schedules written so far. */
HF_API uint64_t hf_writer_count(const hf_writer *w);

/** A sink that passes every schedule on to `next` and tells `failed` (NULL: nobody) of each
 * status of `next` other than HF_OK as soon as it comes, with errno as `next` left it. `next`
 * may be set after the sink is handed out, up to its first schedule: a writer made when
 * hf_generate_ex announces the family, for instance. Schedules the library's generators hand
 * over in their own form (see hf_writer) reach `next` in that form, where a plain wrapper sink
 * would see (and pass on) rows of event ids. */
typedef struct hf_sink_watch {
    hf_sink next;
    void (*failed)(void *user, hf_status st);
    void *user;
} hf_sink_watch;

/** The sink of @p w, which must outlive its use. */
HF_API hf_sink hf_sink_watch_sink(hf_sink_watch *w);
/** Finish the output (JSON closing brackets), flush, and free @p w. Returns HF_EIO if any write
 * failed. NULL is a no-op returning HF_OK. */
HF_API HF_NODISCARD hf_status hf_writer_close(hf_writer *w);

/** Write an event name as the family text format does: bare when it is a DOT identifier or
 * numeral (and no DOT keyword), otherwise in double quotes with \" \\ and \n escapes.
 * HF_EIO when the stream fails. */
HF_API HF_NODISCARD hf_status hf_name_write(FILE *out, const char *name);

/** Write a whole family. */
HF_API HF_NODISCARD hf_status hf_family_write(const hf_poset *p, const hf_family *f, FILE *out,
                                              hf_format format, const hf_family_header *header);

/** Read a family of schedules of @p p from memory: text, JSON, ids or bin, detected from the
 * first bytes (`\x89HFB` is bin, `{` after blanks JSON, a text header with `format=ids` ids).
 * Every schedule must list each event exactly once, by name (text), by name or index (JSON) or
 * by index (ids, bin; an ids `# events` line or the bin name table must match the order's names
 * index by index, HF_EMISMATCH otherwise). A bin file is refused when its length, trailer or
 * checksum does not match (HF_EPARSE), its version is not 1 (HF_EUNSUPPORTED), and its errors
 * give the byte offset in the message (line and column 0). Errors with line and column in
 * @p err: HF_EPARSE,
 * HF_ENOTFOUND (unknown event), HF_ESCHEDULE (missing or repeated event; a header whose
 * `schedules=` disagrees with the content), HF_EMISMATCH (a header `events=` or a JSON "events"
 * list that does not match the order's events), HF_ENOMEM. The message does not repeat the
 * position, which is in err->line and err->column. The order itself is not
 * checked here: hf_verify does. A text header's `rows=A:B` (a slice, gen --rows) makes
 * `schedules=` the whole family's size and requires B - A + 1 schedules (`rows=A:`: the rest of
 * schedules=); JSON's "rows" is accepted and not checked. If @p header is non-NULL, the
 * header's d (0 if absent) and a text header's rows (row_last: A + schedules read - 1 for
 * `rows=A:`) are stored there (method is set to NULL: the family keeps the header's method, see
 * hf_family_method, and where each schedule was read, see hf_family_schedule_line). Caller owns
 * `*out`. */
HF_API HF_NODISCARD hf_status hf_family_read_mem(const hf_poset *p, const char *data, size_t len,
                                                 hf_family **out, hf_family_header *header,
                                                 hf_error *err);
/** Same from a stream read to its end (HF_EIO, "reading the family failed", when it fails).
 * The text is read in chunks (HF_STREAM_CHUNK bytes, hitfam/stream.h) and dropped as it is
 * parsed, so the memory held is the family's and one chunk's, not the text's as well; JSON
 * from a stream that cannot seek (a pipe), which is read twice, is kept whole. */
HF_API HF_NODISCARD hf_status hf_family_read_file(const hf_poset *p, FILE *in, hf_family **out,
                                                  hf_family_header *header, hf_error *err);

/** The method named by the header of the input @p f was read from (hf_family_read_mem): text
 * `method=NAME` (unquoted when it is one quoted name, as the writer quotes it) or JSON
 * `"method": "NAME"`. NULL when the header names none, names "unknown" (how the writer spells a
 * NULL method), or holds more than HF_MAX_NAME bytes or a NUL byte; also for a JSON "method"
 * that is not a string and for families not read from text, JSON, ids or bin (whose header's
 * method bytes are read the same way). Owned by the family, valid
 * until it is freed. O(1). */
HF_API const char *hf_family_method(const hf_family *f);

/** The 1-based line of the text input where the header of @p f (`# hitfam ...`) was read; 0 for
 * JSON, bin, no header, or a family not read. For messages about the header. O(1). */
HF_API size_t hf_family_header_line(const hf_family *f);

/** The 1-based line of the text or JSON input where schedule @p index of @p f was read (JSON:
 * where its array opens), so that a caller can locate a schedule that hf_verify or
 * hf_family_minimize refuses (HF_ESCHEDULE names it by index). 0 when unknown: bin input, a
 * schedule appended later, an index out of range, or a family that hf_family_minimize has
 * rewritten. hf_family_remove takes the line along with its
 * schedule. The reader keeps one word per schedule for this. O(1). */
HF_API size_t hf_family_schedule_line(const hf_family *f, size_t index);

/** Read a focus file: a set of events of @p p given by name, one per line, for the `focus`
 * fields of hf_gen_options, hf_verify_options and hf_minimize_options. A line holds a name bare
 * (the whole line is the name, blanks at its ends removed, blanks inside kept) or in double
 * quotes with the family text format's escapes (`\"`, `\\`, `\n`, see hf_name_write; a
 * backslash before a line break continues the name on the next line), then nothing but blanks.
 * Blank lines and lines starting with `#` are skipped; LF or CR LF ends a line; a UTF-8 byte
 * order mark at the start is ignored. The ids are stored in file order, a name listed twice
 * twice (the options accept duplicates). On success `*ids` is an array of `*count` ids, non-NULL
 * even when the file names no event, allocated with the poset's context: free it with
 * hf_focus_free. Errors (nothing is allocated, `*ids` NULL, @p err filled with the line and
 * column of the name): HF_ENOTFOUND (a name that is no event of @p p, the message quotes it),
 * HF_EPARSE (an unterminated quoted name, text after a quoted name), HF_EINVAL (a NULL argument),
 * HF_ENOMEM. Time O(len) plus one name lookup per line; memory O(count). */
HF_API HF_NODISCARD hf_status hf_focus_read_mem(const hf_poset *p, const char *data, size_t len,
                                                uint32_t **ids, size_t *count, hf_error *err);

/** Free ids from hf_focus_read_mem with the context of @p p, the order they were read for. NULL
 * @p ids is a no-op. */
HF_API void hf_focus_free(const hf_poset *p, uint32_t *ids);

/* ------------------------------------------------------------------------------------------ */
/* Verification                                                                               */

/** A d-tuple (a_1..a_d) of distinct events is admissible iff no later entry is strictly below an
 * earlier one. A family is d-hitting iff every admissible d-tuple appears in that order in some
 * schedule. */
typedef struct hf_verify_options {
    unsigned d;            /**< 1..HF_MAX_D */
    const uint32_t *focus; /**< if non-NULL: only tuples of these events must be hit */
    size_t focus_count;    /**< number of ids in focus (duplicates allowed) */
    unsigned threads;      /**< threads of the check: 0 (default) = one per processor online
                                (one alone when the check is small), 1 = the calling thread
                                only, at most HF_VERIFY_MAX_THREADS; the answer never depends
                                on it */
    uint32_t shard_index;  /**< 0..shard_count-1: which shard to check (default 0) */
    uint32_t shard_count;  /**< split the tuples into this many shards by their first event
                                (0 or 1, the default: one shard, the whole check). The (focus)
                                event of rank r in increasing id order (r from 0) belongs to
                                shard r mod shard_count, with every tuple starting with it.
                                The family is d-hitting iff every shard is; the whole count of
                                uncovered tuples is the sum of the shards'; the whole witness is
                                the least of the shards' witnesses (lexicographic order) */
    size_t memory_limit;   /**< bytes the check's tables (and a store's rows on the heap) may
                                take on the heap, 0 (the default): no limit. Beyond it the
                                tables go to an unlinked temporary file of $TMPDIR mapped into
                                memory (hitfam/stream.h); the answer never depends on it */
} hf_verify_options;

/** Largest number of threads hf_verify starts. */
#define HF_VERIFY_MAX_THREADS 256u

/** Defaults: d = 2, no focus set, threads 0 (one per processor), one shard. Initialise with it
 * and then set fields, so that fields added later get their defaults. */
HF_API void hf_verify_options_init(hf_verify_options *o);

/** Outcome of a verification that ran to the end. */
typedef struct hf_verify_result {
    bool hitting;               /**< every admissible (focus) d-tuple is hit */
    unsigned d;                 /**< the tuple length checked: min(d, number of (focus)
                                     events), see hf_verify */
    uint32_t witness[HF_MAX_D]; /**< if !hitting: the first uncovered admissible tuple in
                                     lexicographic order of ids */
} hf_verify_result;

/** Check that every schedule of @p f is a linear extension of @p p (HF_ESCHEDULE with a message
 * naming the schedule and the repeated/missing event or the violated pair, and in err->line the
 * line it was read from when known: hf_family_schedule_line), then whether @p f is
 * d-hitting. Time about (number of admissible (d-1)-prefixes) * (n/64 + 64) * s word operations,
 * where s is the number of schedules consulted before the prefix's continuations are all hit
 * (often a few); memory O(m*n + m*n*n/4096 + d*n/64) words. d = 1 holds iff the family is
 * non-empty or n = 0. With fewer (focus) events than d no d-tuple exists; since a d-hitting
 * family must be d'-hitting for every d' <= d (docs/bounds.md), the check is then made for the
 * longest tuples there are, and result->d says which length was checked. With a focus set of
 * k < n distinct events the check runs on the order and the family restricted to them (the same
 * answer and witness): the cost above for a k-event order, plus O(k^2 + m * n) to restrict.
 * The enumeration runs on @p opt->threads threads (the answer never depends on it) and covers
 * only the tuples of shard @p opt->shard_index when @p opt->shard_count > 1 (see
 * hf_verify_options; witness: the shard's first uncovered tuple). HF_EINVAL for a shard index
 * out of range. An in-forest (not a forest) at d >= 3, whole (one shard), whose reversed family
 * fits in a quarter of @p opt->memory_limit, is checked as its dual forest with the schedules
 * reversed (the same answer, and a copy of the family more memory); a family found not hitting
 * there is checked again on the order itself for its witness, so a progress callback then sees
 * the task "verify" start over once. */
HF_API HF_NODISCARD hf_status hf_verify(const hf_poset *p, const hf_family *f,
                                        const hf_verify_options *opt, hf_verify_result *result,
                                        hf_error *err);

/** Check that schedule @p s (n ids) is a linear extension of @p p. On failure returns
 * HF_ESCHEDULE and explains in @p err (the schedule is called "schedule @p index + 1"). O(n + e).
 */
HF_API HF_NODISCARD hf_status hf_schedule_check(const hf_poset *p, const uint32_t *s, size_t index,
                                                hf_error *err);

/* ------------------------------------------------------------------------------------------ */
/* Minimisation                                                                               */

/** Largest d hf_family_minimize handles (after reducing d to the number of (focus) events). */
#define HF_MINIMIZE_MAX_D 4u
/** Largest table of per-tuple counters hf_family_minimize allocates: one byte per ordered
 * d-tuple of (focus) events, k^d bytes for k events, at most 2^31 bytes (2 GiB). For d = 3
 * that is up to 1290 events, for d = 4 up to 215, for d = 2 up to 46340. */
#define HF_MINIMIZE_MAX_TABLE ((uint64_t)1 << 31)

/** Options of hf_family_minimize. Initialise with hf_minimize_options_init, then set fields. */
typedef struct hf_minimize_options {
    unsigned d;            /**< 1..HF_MINIMIZE_MAX_D (default 2) */
    const uint32_t *focus; /**< if non-NULL: only tuples of these events must stay hit (as in
                                hf_verify_options) */
    size_t focus_count;    /**< number of ids in focus (duplicates allowed) */
    uint64_t seed;         /**< tie-breaks and the choice of schedules to replace (default 0) */
    uint64_t rounds;       /**< replacement attempts; 0 (default): HF_MINIMIZE_DEFAULT_ROUNDS
                                times the number m of schedules left after the drop step, but
                                at most max(m, HF_MINIMIZE_DEFAULT_WORK / C(k, d)) for k
                                (focus) events */
    bool drop_only;        /**< only step 1: drop redundant schedules, no replacement */
} hf_minimize_options;

/** Attempts per schedule when hf_minimize_options.rounds is 0. */
#define HF_MINIMIZE_DEFAULT_ROUNDS 200u
/** Work bound of the default number of attempts: attempts times tuples per schedule. An attempt
 * costs a few walks over the C(k, d) tuples of a schedule, so 2^32 is some tens of seconds. */
#define HF_MINIMIZE_DEFAULT_WORK ((uint64_t)1 << 32)

/** Defaults: d = 2, no focus set, seed 0, rounds 0 (the default number of attempts), both
 * steps. */
HF_API void hf_minimize_options_init(hf_minimize_options *o);

/** What hf_family_minimize did. */
typedef struct hf_minimize_result {
    size_t before;              /**< schedules on input */
    size_t after_drop;          /**< schedules after step 1 (dropping redundant schedules) */
    size_t after;               /**< schedules at the end */
    uint64_t rounds_run;        /**< replacement attempts made in step 2 */
    unsigned d;                 /**< the tuple length handled: min(d, number of (focus) events) */
    uint32_t witness[HF_MAX_D]; /**< on HF_EMISMATCH for a family that is not d-hitting: its
                                     first uncovered admissible tuple (lexicographic order of
                                     ids, as hf_verify reports it), result->d entries */
} hf_minimize_result;

/** Make a d-hitting family smaller while keeping it d-hitting, in place.
 * Step 1 drops redundant schedules (those all of whose tuples other schedules hit), trying first
 * the schedules that hit the fewest tuples no other schedule hits, then the fewest tuples exactly
 * one other schedule hits, then later schedules first (so the first of several copies stays).
 * The result of step 1 is irredundant: removing any one schedule breaks hitting.
 * Step 2 is the post-optimisation of Murray and Colbourn ("Sequence covering arrays and linear
 * extensions", 2014): repeatedly pick a schedule S (uniformly among the family's, from the seeded
 * PRNG); the tuples only S hits become precedence constraints, and S is replaced by a linear
 * extension of the order plus those constraints, built event by event (events outside the focus
 * set are placed as soon as they are available). In one attempt of four the extension is greedy:
 * each step places the available event that completes the most tuples that exactly one other
 * schedule hits (ties broken by the PRNG); in the others every step picks an available event
 * uniformly (the random ones reached smaller families on antichains and trees, the greedy ones
 * alone stall in local optima). Every schedule that has become redundant is then dropped.
 * Step 2 stops after @p o->rounds attempts, or when one schedule is left; it is skipped with
 * @p o->drop_only and for d = 1 (where one schedule suffices). The family stays d-hitting
 * throughout, never grows, and remains irredundant; its schedules keep their relative order (a
 * replacement takes its schedule's place). Same input, options and seed: same output on every
 * machine (no clock is read). @p r may be NULL.
 * Errors (the family is left unchanged): HF_EINVAL (NULL argument, d = 0 or above HF_MAX_D, a
 * focus id out of range); HF_EMISMATCH (the family's event count differs from the order's, or
 * the family is not d-hitting: the message names the first uncovered tuple, also stored in
 * `r->witness`); HF_ESCHEDULE (a schedule is not a linear extension, as hf_schedule_check);
 * HF_EUNSUPPORTED (d above HF_MINIMIZE_MAX_D with at least that many (focus) events);
 * HF_ETOOLARGE (the counter table would exceed HF_MINIMIZE_MAX_TABLE bytes, or the order is
 * neither a forest, an in-forest, nor of at most HF_CLOSURE_MAX_EVENTS events); HF_ENOMEM (all
 * memory is taken before the family is touched, so it is unchanged).
 * Cost, with m schedules, n events, k (focus) events and T = C(k, d) tuples per schedule:
 * memory k^d bytes of counters plus O(m * (n + k) + k^2 / 8) bytes; time O(m * T) to count and
 * drop, then per attempt O(T) word operations to find S's essential tuples and update the
 * counts, O(n + e + k^2 / 64) to build the replacement plus O(C(k, d-1) * k) byte operations
 * when it is greedy, and O(m * d) per tuple whose count falls to or rises from one (to find the
 * schedule that alone hits it). For d = 3 and k = 500 an attempt takes about a tenth of a
 * second. */
HF_API HF_NODISCARD hf_status hf_family_minimize(const hf_poset *p, hf_family *f,
                                                 const hf_minimize_options *o,
                                                 hf_minimize_result *r, hf_error *err);

/* ------------------------------------------------------------------------------------------ */
/* Generators                                                                                 */

/** Construction methods. Values are pinned. */
typedef enum hf_method {
    HF_METHOD_AUTO = 0, /**< the applicable method with the smallest predicted family */
    HF_METHOD_DFS = 1,  /**< d <= 2, forests and in-forests: the two DFS preorders (Claim 3.1) */
    HF_METHOD_SIMPLE = 2,
    HF_METHOD_DOUBLETREE = 3,
    HF_METHOD_PATTERN = 4,
    HF_METHOD_RANDOM = 5,
    HF_METHOD_GREEDY = 6,
    HF_METHOD_CHAINS = 7 /**< any order, any d: one schedule per (chain, admissible
                              (d-2)-tuple), the chains being the threads
                              (hf_poset_builder_set_thread) or a minimum decomposition:
                              at most width * n^(d-2) schedules; refused beyond 2^22 */
    ,
    HF_METHOD_SCRAMBLE = 8, /**< d <= 3, pairwise incomparable focus events (an antichain
                                without a focus set): the double-tree recursion over blocks
                                with searched block families; 2 * rows(m) schedules for m
                                focus events, or a Sperner family when smaller: 26 for
                                m = 1,000 (lib/gen_scramble.c); at d = 3 also spine forests
                                (the events with children form one chain: stars, brooms,
                                caterpillars): the leaves' Sperner rows and one row per
                                chain event, at most 2t + k + 1 for C(t, t/2) >= the leaves
                                and a chain of k (lib/gen_scramble_tree.c) */
    HF_METHOD_EXACT = 9,    /**< small orders (hitfam/exact.h): a smallest family by SAT, going
                                down from a known family within a conflict budget; needs the
                                build's SAT solver (libcadical-dev) */
    /* The samplers beside random (docs/samplers.md, lib/gen_sample.c): seeded streams of
     * random schedules, never auto's choice; each takes a count or runs until covered. */
    HF_METHOD_RW = 10,      /**< random walk: each step runs a uniformly chosen enabled event */
    HF_METHOD_PCT = 11,     /**< PCT of depth d: random thread priorities, d-1 change points */
    HF_METHOD_POS = 12,     /**< partial order sampling: random event priorities, refreshed
                                 for the events that conflict with each event run */
    HF_METHOD_BASICPOS = 13 /**< POS without the refresh */
} hf_method;

/** The method's CLI name ("auto", "dfs", ...), or NULL for an unknown value. */
HF_API const char *hf_method_name(hf_method m);
/** Parse a method name. HF_ENOTFOUND for an unknown name. */
HF_API HF_NODISCARD hf_status hf_method_from_name(const char *name, hf_method *m);

/** Which patterns method pattern enumerates (see lib/gen_pattern.h for the encoding). Every
 * mode gives a d-hitting family; they nest: canonical within realised within all. */
typedef enum hf_pattern_mode {
    HF_PATTERN_CANONICAL = 0, /**< realised patterns, one order of their nodes per entry set */
    HF_PATTERN_REALISED = 1,  /**< the patterns some admissible tuple of the tree conforms to */
    HF_PATTERN_ALL = 2        /**< every pattern, as in the paper's Theorem 5.1 */
} hf_pattern_mode;

/** Options of hf_generate. Initialise with hf_gen_options_init, then set fields. */
typedef struct hf_gen_options {
    unsigned d;            /**< 1..HF_MAX_D (default 2) */
    hf_method method;      /**< default HF_METHOD_AUTO */
    uint64_t seed;         /**< for randomised methods (default 0) */
    const uint32_t *focus; /**< NULL: every event; else only tuples of these events must be
                                hit (the tree methods work on the order induced on them and
                                extend each schedule to all events) */
    size_t focus_count;
    bool focus_prefix;            /**< the paper's pruning (Section 6): hit every admissible d-tuple
                                       whose first d-2 events are focus events, whatever the others.
                                       Method simple then draws only its prefixes from the focus set
                                       (2|focus|^(d-2) schedules at most; forests only); the other
                                       methods ignore the focus set, which gives the same guarantee. */
    uint64_t count;               /**< the sampling methods (hf_method_is_sampler): exactly this
                                       many schedules (no guarantee of hitting), any d; 0
                                       (default): until the stream is d-hitting. Refused
                                       (HF_EINVAL) with any other method */
    hf_pattern_mode pattern_mode; /**< method pattern (default HF_PATTERN_CANONICAL) */
    uint64_t max_names;           /**< the largest family hf_generate starts, counted as schedules x
                                       events (default HF_GEN_DEFAULT_MAX_NAMES; 0: no limit). A
                                       family whose size is known beforehand (auto, and every method
                                       that predicts cheaply) is refused with HF_ETOOLARGE before the
                                       first schedule; the others (greedy, chains, random until
                                       covered) are stopped with HF_ETOOLARGE when they pass it. */
    uint64_t conflicts;           /**< method exact: its SAT conflict budget (hitfam/exact.h); 0
                                       (default): HF_EXACT_DEFAULT_CONFLICTS when asked for by name,
                                       HF_EXACT_AUTO_CONFLICTS when auto weighs it */
    uint64_t row_first;           /**< 0 (default): the whole family. Else only schedules
                                       row_first..row_last of it, counted from 1, reach the sink:
                                       the same schedules, in the same order, as those positions
                                       of the whole family's stream. dfs, doubletree, simple,
                                       pattern, chains and scramble compute the rows asked for
                                       (about O(n) per row, the other rows are not built); the
                                       other methods (and auto's run-to-predict choices) build the
                                       whole family and pass the slice on. HF_EINVAL when a row
                                       lies beyond the family: before the first schedule when the
                                       size is known beforehand, at the end otherwise. max_names
                                       then counts the slice's names for the methods that compute
                                       rows and the whole family's for the others */
    uint64_t row_last;            /**< last row of the slice (inclusive, >= row_first); 0: to the
                                       end of the family. Must be 0 when row_first is 0 */
    unsigned threads;             /**< 1 (default) or 0: all work on the caller's thread. 2 or more:
                                       method doubletree builds its rows on a second thread, one
                                       row ahead of the sink (two row buffers; more threads are
                                       not used). The sink is still called on the caller's
                                       thread only, in the same order with the same schedules; the
                                       second thread neither allocates nor calls the context back.
                                       Other methods ignore it; if the thread cannot be started the
                                       rows are built on the caller's thread */
} hf_gen_options;

/** Default of hf_gen_options.max_names: 10^10 names, some 20 GB of text. */
#define HF_GEN_DEFAULT_MAX_NAMES 10000000000u

/** Defaults: d = 2, auto, seed 0, no focus set, focus_prefix false, count 0, canonical
 * patterns, max_names HF_GEN_DEFAULT_MAX_NAMES, the whole family (row_first = row_last = 0), one
 * thread. Always
 * initialise with this function: fields may be added at the end in later versions. */
HF_API void hf_gen_options_init(hf_gen_options *opt);

/** Whether @p method can build a d-hitting family for @p p. HF_OK, or HF_EUNSUPPORTED with a
 * message in @p err saying why and which method to use instead, or HF_EINVAL (bad d). For
 * HF_METHOD_AUTO: HF_OK iff some method applies. */
HF_API HF_NODISCARD hf_status hf_method_check(const hf_poset *p, const hf_gen_options *opt,
                                              hf_error *err);

/** True iff @p m is a sampling method (random, rw, pct, pos, basicpos): it streams random
 * schedules from hf_gen_options.seed, exactly hf_gen_options.count of them or, with count 0,
 * until they form a d-hitting family (HF_ETOOLARGE after 20,000). */
HF_API bool hf_method_is_sampler(hf_method m);

/** True iff the exact size of method @p m is known only by running its construction (random
 * until covered, greedy, chains): hf_method_predict then costs about as much as hf_generate.
 * (Pattern's prediction walks the patterns without building schedules: about a tenth of
 * generating.) */
HF_API bool hf_method_predict_runs(hf_method m);

/** The exact number of schedules hf_generate would produce, without generating. For auto, the
 * chosen method is stored in `*chosen` (may be NULL). Values beyond 2^64-1 give HF_ETOOLARGE
 * (the GMP interface in hitfam/count.h has the exact figure). */
HF_API HF_NODISCARD hf_status hf_method_predict(const hf_poset *p, const hf_gen_options *opt,
                                                uint64_t *size, hf_method *chosen, hf_error *err);

/** Generate a d-hitting family of @p p with the chosen method, streaming each schedule to
 * @p sink. The method actually used is stored in `*used` (may be NULL). Errors as
 * hf_method_check, HF_ETOOLARGE (a family above opt->max_names, or a size too large to
 * predict), HF_ENOMEM, or the sink's own status. Each method documents its cost. */
HF_API HF_NODISCARD hf_status hf_generate(const hf_poset *p, const hf_gen_options *opt,
                                          hf_sink sink, hf_method *used, hf_error *err);

/** What hf_generate_ex announces before the first schedule. */
typedef struct hf_gen_info {
    hf_method method;     /**< the method that runs (auto's choice resolved) */
    bool schedules_known; /**< whether `schedules` holds the exact family size */
    uint64_t schedules;   /**< the number of schedules that will follow, if known */
} hf_gen_info;

/** Called once by hf_generate_ex after the method is chosen and before any schedule; a non-zero
 * return stops the generation with that status. */
typedef hf_status (*hf_gen_begin_fn)(void *user, const hf_gen_info *info);

/** hf_generate with an announcement: @p begin (may be NULL) learns the method and, when it is
 * known without running the method a second time, the exact number of schedules (explicit
 * methods that predict cheaply: by their prediction; auto: by the prediction that chose the
 * method, or the family auto already built; a sampling method with a count: the count). It is
 * unknown (schedules_known false) for an explicit greedy or pattern, a sampler until covered, and
 * sizes beyond 2^64-1. This is what a writer needs for a header, without predicting first and
 * generating after. @p info (may be NULL) receives the same record. */
HF_API HF_NODISCARD hf_status hf_generate_ex(const hf_poset *p, const hf_gen_options *opt,
                                             hf_gen_begin_fn begin, void *begin_user, hf_sink sink,
                                             hf_gen_info *info, hf_error *err);

#ifdef __cplusplus
}
#endif

#endif /* HITFAM_HITFAM_H */
