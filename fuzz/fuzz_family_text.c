/* Fuzz target: the family text reader against a fixed six-event order with awkward names.
 * Inputs that read are written back as text and must read back as the same schedules. */
#define FUZZ_FAMILY_JSON 0
#include "fuzz_family_impl.h"
