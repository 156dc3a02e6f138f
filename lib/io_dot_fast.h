/* DOT reading in two paths (lib/io_dot.c dispatches): a fast reader of the plain subset of DOT
 * (lib/io_dot_fast.c) and libcgraph, the parser of record, for everything else. Internal. */
#ifndef HITFAM_IO_DOT_FAST_H
#define HITFAM_IO_DOT_FAST_H

#include "internal.h"

/* The plain subset read in one pass over the text, without libcgraph: HF_OK with *out, exactly
 * the poset libcgraph's reading gives; HF_EUNSUPPORTED when the text leaves the subset or would
 * be refused (nothing allocated is left behind: the caller reads it again with libcgraph, whose
 * messages are the ones shown); HF_ENOMEM. @p data has no leading byte order mark. */
hf_status hf_i_dot_read_fast(hf_ctx *ctx, const char *data, size_t len, hf_poset **out,
                             hf_error *err);

/* The libcgraph reading alone (the whole of hf_dot_read_mem before the fast path existed). */
hf_status hf_i_dot_read_cgraph(hf_ctx *ctx, const char *data, size_t len, hf_poset **out,
                               hf_error *err);

/* Which path hf_dot_read_mem takes: the fast one with libcgraph behind it (the default), one
 * alone, for tests and benchmarks. The environment variable HITFAM_DOT_READER (`fast`,
 * `libcgraph`) sets it too; a fast-only read that leaves the subset fails with HF_EUNSUPPORTED. */
typedef enum hf_i_dot_path { HF_I_DOT_AUTO, HF_I_DOT_FAST, HF_I_DOT_CGRAPH } hf_i_dot_path;
hf_status hf_i_dot_read_path(hf_ctx *ctx, const char *data, size_t len, hf_i_dot_path path,
                             hf_poset **out, hf_error *err);

#endif /* HITFAM_IO_DOT_FAST_H */
