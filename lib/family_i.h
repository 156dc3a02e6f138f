/* The layout of struct hf_family, for the code that builds and reads families (family.c, the
 * readers and writers, minimize, verify). Methods write schedules through hf_family_sink only. */
#ifndef HITFAM_FAMILY_I_H
#define HITFAM_FAMILY_I_H

#include "internal.h"

struct hf_family {
    hf_ctx *ctx;
    uint32_t n;
    size_t m;
    size_t cap;
    uint32_t *rows; /* m * n ids */
    /* Where the family was read from (lib/io_family.c), for messages about its input: the
     * header's method (NULL: none), the header's line, and the line of schedule k for k < lined
     * (0: unknown). Schedules removed take their line along; hf_family_minimize forgets all. */
    char *method;
    size_t header_line;
    size_t *lines;
    size_t lined;
};

/* Whether a and b have the same events and the same schedules in the same order (for tests,
 * fuzz targets and benchmarks that compare two readings or two runs). O(m n). */
bool hf_i_family_same(const hf_family *a, const hf_family *b);

#endif /* HITFAM_FAMILY_I_H */
