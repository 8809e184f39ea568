// A dependent of the shim library (ExecuTorch: backends/cuda/runtime/cuda_backend.cpp): it calls
// shims through their headers and the library's C++ allocator.
#include "backends/aoti/common_shims.h"
#include "backends/cuda/runtime/cuda_allocator.h"
#include "backends/cuda/runtime/shims/memory.h"

extern "C" int et_shape_backend_run(void) {
  const int64_t sizes[2] = {3, 4};
  Tensor* tensor = nullptr;
  int64_t numel = 0;
  if (aoti_torch_empty_strided(2, sizes, &tensor) != 0 || aoti_torch_get_numel(tensor, &numel) != 0) {
    return 1;
  }
  const auto live = executorch::backends::cuda::CudaAllocator::instance().live();
  aoti_torch_delete_tensor_object(tensor);
  return numel == 12 && live == 2 ? 0 : 2;
}
