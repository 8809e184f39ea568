#pragma once

#include "backends/aoti/common_shims.h"

extern "C" {
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_empty_strided(int64_t ndim, const int64_t* sizes, Tensor** ret_new_tensor);
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_delete_tensor_object(Tensor* tensor);
}
