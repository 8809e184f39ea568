// A test binary of the shim library that needs no GPU (ExecuTorch: the shim gtests).
#include <cstdio>

#include "backends/aoti/common_shims.h"
#include "backends/cuda/runtime/cuda_allocator.h"
#include "backends/cuda/runtime/shims/memory.h"

int main() {
  using executorch::backends::cuda::CudaAllocator;
  const int64_t sizes[1] = {5};
  Tensor* tensor = nullptr;
  int64_t dim = -1;
  if (aoti_torch_empty_strided(1, sizes, &tensor) != 0 || aoti_torch_get_dim(tensor, &dim) != 0 || dim != 1) {
    std::puts("FAILED: shims");
    return 1;
  }
  if (CudaAllocator::instance().live() != 2) {
    std::puts("FAILED: allocator");
    return 1;
  }
  aoti_torch_delete_tensor_object(tensor);
  std::printf("test_allocator: ok (live %zu)\n", CudaAllocator::instance().live());
  return CudaAllocator::instance().live() == 0 ? 0 : 1;
}
