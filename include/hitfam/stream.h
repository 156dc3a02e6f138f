/* Families read without holding the input: one schedule at a time from a stream, and a compact
 * store of the schedules (on the heap or in a mapped temporary file) that verify checks. */
#ifndef HITFAM_STREAM_H
#define HITFAM_STREAM_H

#include <hitfam/count.h>
#include <hitfam/hitfam.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Receives schedule @p index (0-based; @p n ids, valid during the call) read from line @p line
 * (1-based; for JSON the line where its array opens; 0 for bin input). Any status other than HF_OK
 * stops the reading, which then returns that status. */
typedef hf_status (*hf_schedule_fn)(void *user, const uint32_t *schedule, uint32_t n, size_t index,
                                    size_t line);

/** Bytes read at a time when the chunk size given is 0. */
#define HF_STREAM_CHUNK 65536u

/** Read a family of @p p from @p in (text, ids, JSON or bin, as hf_family_read_mem reads them,
 * with the same checks, messages and line numbers) @p chunk bytes at a time (0: HF_STREAM_CHUNK),
 * handing each schedule to @p fn as soon as its line (text), array (JSON) or row (bin) is read.
 * Never holds the whole input: memory O(n + the longest line + chunk) for text; for bin, the
 * header with its event names, one schedule and a chunk; for JSON, the "events" array
 * and the longest schedule, and since JSON is read twice (syntax first, as the whole-input
 * reader does, then "events" and "schedules"), an input that cannot seek (a pipe) is copied to
 * an unlinked temporary file first. A malformed JSON schedule may be held up to the point where
 * its brackets close (or the end of the input). If @p header is non-NULL it receives d (0 if
 * absent) and the number of schedules read (method NULL). Schedules handed out before an error
 * stay handed out: an error may come after them (a caller that needs the whole input valid
 * waits for HF_OK). HF_EIO when reading fails. */
HF_API HF_NODISCARD hf_status hf_family_stream_file(const hf_poset *p, FILE *in, size_t chunk,
                                                    hf_schedule_fn fn, void *user,
                                                    hf_family_header *header, hf_error *err);

/** hf_family_stream_file on data[0..len), copied @p chunk bytes at a time into the reader's
 * window (0: the whole buffer is used in place). */
HF_API HF_NODISCARD hf_status hf_family_stream_mem(const hf_poset *p, const char *data, size_t len,
                                                   size_t chunk, hf_schedule_fn fn, void *user,
                                                   hf_family_header *header, hf_error *err);

/** The schedules of a family as n 32-bit ids each, row after row: on the heap while they fit a
 * quarter of the memory limit, beyond it in an unlinked temporary file of $TMPDIR (default
 * /tmp) mapped into memory, whose pages the kernel writes back and drops under memory pressure.
 * Besides the rows it keeps one word per schedule (its input line). */
typedef struct hf_family_store hf_family_store;

/** Read a family of @p p from @p in with hf_family_stream_file into a new store (`*out`, freed
 * with hf_family_store_free). @p memory_limit in bytes, 0 for none (all on the heap). Errors as
 * hf_family_stream_file's, plus HF_EIO when the temporary file cannot be written or mapped. */
HF_API HF_NODISCARD hf_status hf_family_store_read(const hf_poset *p, FILE *in, size_t memory_limit,
                                                   hf_family_store **out, hf_family_header *header,
                                                   hf_error *err);
/** Number of schedules. */
HF_API size_t hf_family_store_size(const hf_family_store *s);
/** Schedule @p index (n ids, valid until the store is freed), or NULL. */
HF_API const uint32_t *hf_family_store_schedule(const hf_family_store *s, size_t index);
/** The line schedule @p index was read from (as hf_family_schedule_line); 0 for bin or an index
 * out of range. */
HF_API size_t hf_family_store_schedule_line(const hf_family_store *s, size_t index);
/** Whether the rows are in a mapped temporary file (true) or on the heap. */
HF_API bool hf_family_store_mapped(const hf_family_store *s);
/** Free @p s (NULL: no-op); a temporary file goes with it. */
HF_API void hf_family_store_free(hf_family_store *s);

/** hf_verify on the schedules of @p s: the same checks, answer, witness and errors as hf_verify
 * on the same family. opt->memory_limit applies as for hf_verify (the store's rows on the heap
 * count against it). */
HF_API HF_NODISCARD hf_status hf_verify_store(const hf_poset *p, const hf_family_store *s,
                                              const hf_verify_options *opt,
                                              hf_verify_result *result, hf_error *err);
/** hf_verify_count_uncovered on the schedules of @p s. */
HF_API HF_NODISCARD hf_status hf_verify_store_count_uncovered(const hf_poset *p,
                                                              const hf_family_store *s,
                                                              const hf_verify_options *opt,
                                                              mpz_t out, hf_error *err);

#ifdef __cplusplus
}
#endif

#endif
