#include "backends/cuda/runtime/shims/memory.h"

#include "backends/cuda/runtime/cuda_allocator.h"

using executorch::backends::cuda::CudaAllocator;

extern "C" AOTITorchError aoti_torch_empty_strided(int64_t ndim, const int64_t* sizes, Tensor** ret_new_tensor) {
  if (ndim < 0 || ndim > 4) {
    return 1;
  }
  auto* tensor = static_cast<Tensor*>(CudaAllocator::instance().allocate(sizeof(Tensor)));
  tensor->dim = ndim;
  int64_t numel = 1;
  for (int64_t i = 0; i < ndim; ++i) {
    tensor->sizes[i] = sizes[i];
    numel *= sizes[i];
  }
  tensor->data = static_cast<float*>(CudaAllocator::instance().allocate(sizeof(float) * numel));
  *ret_new_tensor = tensor;
  return 0;
}

extern "C" AOTITorchError aoti_torch_delete_tensor_object(Tensor* tensor) {
  CudaAllocator::instance().release(tensor->data);
  CudaAllocator::instance().release(tensor);
  return 0;
}
