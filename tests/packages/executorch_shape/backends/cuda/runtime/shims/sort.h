#pragma once

#include "backends/aoti/common_shims.h"

extern "C" {
// Built only when CUDA is (ExecuTorch: backends/cuda/runtime/shims/sort.cu).
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cuda_sort_stable(Tensor* self, int64_t dim, Tensor** ret_values);
}
