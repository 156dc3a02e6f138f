/* placeholder: replaced by the module implementation. */
#include "internal.h"
