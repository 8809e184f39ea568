// aoti_torch_cuda_view_dtype: a CUDA tensor's bytes seen as another dtype (self.view(dtype)). The same
// function as the CPU shim's (../views.h): metadata only, the result shares self's device storage,
// nothing is launched.
#include "../views.h"
#include "op_support.cuh"
#include "shimgen_runtime/shim_cuda_ops.h"

using namespace shimgen::rt;
using namespace shimgen::rt::cuda_ops;

extern "C" AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cuda_view_dtype(AtenTensorHandle self, int32_t dtype,
                                                                      AtenTensorHandle* ret0) {
  return guarded(__func__, [&] {
    const Tensor& in = cuda_arg(self, "self");
    SHIMGEN_REQUIRE(ret0 != nullptr, "ret0 is null");
    *ret0 = wrap(views::view_dtype(in, dtype));
  });
}
