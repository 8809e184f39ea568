#include <acme/shims.h>

#if defined(__GNUC__) || defined(__clang__)
__attribute__((visibility("default")))
#endif
int32_t acme_shims_abi_version(void) { return 1; }
