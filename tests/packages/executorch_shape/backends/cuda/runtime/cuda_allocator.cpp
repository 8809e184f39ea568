#include "backends/cuda/runtime/cuda_allocator.h"

#include <cstdlib>

namespace executorch::backends::cuda {

CudaAllocator& CudaAllocator::instance() {
  static CudaAllocator allocator;
  return allocator;
}

void* CudaAllocator::allocate(std::size_t bytes) {
  ++live_;
  return std::malloc(bytes);  // host memory: the stand-in runs without a GPU
}

void CudaAllocator::release(void* pointer) {
  --live_;
  std::free(pointer);
}

std::size_t CudaAllocator::live() const { return live_; }

}  // namespace executorch::backends::cuda
