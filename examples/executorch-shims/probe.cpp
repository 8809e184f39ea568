// Links the prefixed shim library the way a generated model does and calls a shim through
// ExecuTorch's own header (renamed by the force-included header); hosts the post-build check.
#include <cstdio>

#include <executorch/backends/aoti/common_shims_slim.h>

int main() {
  std::printf("float32 dtype code: %d\n", static_cast<int>(executorch::backends::aoti::aoti_torch_dtype_float32()));
  return executorch::backends::aoti::aoti_torch_dtype_float32() == 6 ? 0 : 1;
}
