/* The order and a family restricted to a focus set (lib/verify_focus.c), which hf_verify checks
 * instead of the whole order when the focus set is smaller. */
#ifndef HITFAM_VERIFY_FOCUS_H
#define HITFAM_VERIFY_FOCUS_H

#include "internal.h"

struct hf_i_projection {
    hf_poset *p;   /* the order restricted to the focus events, named as they are */
    hf_family *f;  /* the family with every other event deleted from each schedule */
    uint32_t *ids; /* ids[i]: the event of the order that is event i of p */
    uint32_t k;    /* distinct focus events */
};

/* Project @p p and the m schedules of @p rows (valid: every schedule a linear extension) onto the
 * distinct events of focus[0..focus_count). Focus events keep their relative id order. On failure
 * *out is empty. Reports progress as hf_verify's setup does (HF_EABORTED when told to stop). */
hf_status hf_i_focus_project(const hf_poset *p, const uint32_t *rows, size_t m,
                             const uint32_t *focus, size_t focus_count, struct hf_i_projection *out,
                             hf_error *err);
void hf_i_projection_free(hf_ctx *ctx, struct hf_i_projection *pr);

#endif
