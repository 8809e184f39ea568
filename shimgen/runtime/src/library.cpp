// The shared library's own translation unit: the shims are whole-archived in from
// shimgen_runtime_shims, so this file only gives the library a source of its own.
#include "shimgen_runtime/types.h"
