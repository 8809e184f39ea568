// Shims shared by the backends (ExecuTorch: backends/aoti/common_shims_slim.h).
#pragma once

#include <cstdint>

#include "export.h"

struct Tensor {
  int64_t dim;
  int64_t sizes[4];
  float* data;
};

extern "C" {
using AOTITorchError = int32_t;

AOTI_SHIM_EXPORT AOTITorchError aoti_torch_get_numel(Tensor* tensor, int64_t* ret_numel);
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_get_dim(Tensor* tensor, int64_t* ret_dim);
}
