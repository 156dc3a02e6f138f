/* Fuzz target: the family JSON reader against a fixed six-event order with awkward names.
 * Inputs that read are written back as JSON and must read back as the same schedules. */
#define FUZZ_FAMILY_JSON 1
#include "fuzz_family_impl.h"
