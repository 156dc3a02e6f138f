/* Fuzz target: the binary family reader (docs/formats.md) against the fixed six-event order.
 * Byte 0 of an input chooses whether its checksum is made right first (bit 0), so that the
 * fuzzer reaches the checks behind the checksum; the rest is the file. Inputs that read are
 * written back as bin, ids and bin again and must read back as the same schedules. */
#define FUZZ_FAMILY_JSON 0
#define FUZZ_FAMILY_BIN  1
#include "fuzz_family_impl.h"
