/* hitfam: the compact order format (docs/order-format.md), hitfam's own binary file for a
 * partial order with its names, focus marks, threads and objects: read without parsing DOT. */
#ifndef HITFAM_ORDER_H
#define HITFAM_ORDER_H

#include <hitfam/hitfam.h>

#ifdef __cplusplus
extern "C" {
#endif

/** The first 8 bytes of every compact order file ("HFORDER" and a NUL byte: never DOT). */
#define HF_ORDER_MAGIC "HFORDER"
/** The layout version hf_order_write writes and hf_order_read_mem reads. */
#define HF_ORDER_VERSION 1u

/** True iff @p data (@p len bytes) starts like a compact order file: readers of orders (the CLI
 * wherever it takes ORDER.dot) read such input with hf_order_read_mem and all else as DOT. */
HF_API bool hf_order_is_compact(const char *data, size_t len);

/** Write @p p in the compact format: its events in id order with their names, its Hasse edges,
 * focus marks, threads and objects with accesses. hf_order_read_mem reads it back as the same
 * poset (same ids, names, Hasse diagram and labels). Errors: HF_EINVAL (NULL), HF_EIO. O(n + e
 * + bytes of names). */
HF_API HF_NODISCARD hf_status hf_order_write(const hf_poset *p, FILE *out);

/** Read a compact order from memory. On success the caller owns `*out` (a poset of @p ctx).
 * Errors: HF_EINVAL (NULL arguments), HF_EPARSE (not the format, another version, truncated or
 * trailing bytes, a count that does not fit, a name too long or missing its NUL, a duplicate
 * name, an event id out of range, a bad label table: explained in @p err), HF_ESELFLOOP,
 * HF_ECYCLE, HF_ETOOLARGE (as hf_poset_builder_finish), HF_ENOMEM. O(n + e + bytes) plus the
 * builder's work. */
HF_API HF_NODISCARD hf_status hf_order_read_mem(hf_ctx *ctx, const char *data, size_t len,
                                                hf_poset **out, hf_error *err);

#ifdef __cplusplus
}
#endif

#endif /* HITFAM_ORDER_H */
