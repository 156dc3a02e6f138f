/* The allocator of the installed hitfam: the C library's. (The test-only hitfam-chaos links
 * cli/chaos.c instead, whose allocator fails on request.) */
#include "cli.h"

const hf_allocator *cli_allocator(void) { return NULL; }
