// aoti_torch_cuda_reshape: torch.reshape. The same function as the CPU shim's (../views.h): a view
// sharing self's device storage when torch's would be one, else a new contiguous device tensor
// filled by a device-to-device strided copy on the effective stream.
#include "../views.h"
#include "op_support.cuh"
#include "shimgen_runtime/shim_cuda_ops.h"

using namespace shimgen::rt;
using namespace shimgen::rt::cuda_ops;

extern "C" AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cuda_reshape(AtenTensorHandle self, const int64_t* shape,
                                                                   int64_t shape_len_, AtenTensorHandle* ret0) {
  return guarded(__func__, [&] {
    const Tensor& in = cuda_arg(self, "self");
    SHIMGEN_REQUIRE(ret0 != nullptr, "ret0 is null");
    *ret0 = wrap(views::reshape(in, shape, shape_len_));
  });
}
