#include <acme/shims.h>

int32_t aoti_torch_dtype_float32(void) { return 6; }
int32_t aoti_torch_dtype_int64(void) { return 4; }
int32_t aoti_torch_dtype_bool(void) { return 11; }
