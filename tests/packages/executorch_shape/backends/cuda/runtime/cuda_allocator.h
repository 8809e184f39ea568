// C++ API of the shim library that the backend and the tests call (ExecuTorch:
// executorch::backends::cuda::CudaAllocator). Not a shim: `exports` in shimgen.toml exports it.
#pragma once

#include <cstddef>

namespace executorch::backends::cuda {

class CudaAllocator {
 public:
  static CudaAllocator& instance();
  void* allocate(std::size_t bytes);
  void release(void* pointer);
  std::size_t live() const;

 private:
  std::size_t live_ = 0;
};

}  // namespace executorch::backends::cuda
