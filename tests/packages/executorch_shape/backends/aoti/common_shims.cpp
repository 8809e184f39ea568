#include "backends/aoti/common_shims.h"

extern "C" AOTITorchError aoti_torch_get_numel(Tensor* tensor, int64_t* ret_numel) {
  int64_t numel = 1;
  for (int64_t i = 0; i < tensor->dim; ++i) {
    numel *= tensor->sizes[i];
  }
  *ret_numel = numel;
  return 0;
}

extern "C" AOTITorchError aoti_torch_get_dim(Tensor* tensor, int64_t* ret_dim) {
  *ret_dim = tensor->dim;
  return 0;
}
