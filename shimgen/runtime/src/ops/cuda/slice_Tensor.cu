// aoti_torch_cuda_slice_Tensor: self[..., start:end:step] along dim (torch's slice.Tensor). The same
// function as the CPU shim's (../views.h): metadata only, the result shares self's device storage,
// nothing is launched.
#include "../views.h"
#include "op_support.cuh"
#include "shimgen_runtime/shim_cuda_ops.h"

using namespace shimgen::rt;
using namespace shimgen::rt::cuda_ops;

extern "C" AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cuda_slice_Tensor(AtenTensorHandle self, int64_t dim,
                                                                        int64_t* start, int64_t* end, int64_t step,
                                                                        AtenTensorHandle* ret0) {
  return guarded(__func__, [&] {
    const Tensor& in = cuda_arg(self, "self");
    SHIMGEN_REQUIRE(ret0 != nullptr, "ret0 is null");
    *ret0 = wrap(views::slice(in, dim, start, end, step));
  });
}
