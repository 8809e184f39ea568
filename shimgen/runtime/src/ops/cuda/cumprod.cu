// aoti_torch_cuda_cumprod: running product along dim (torch.cumprod). A new contiguous tensor;
// dtype null: self's, int64 for integer and bool inputs. One thread per line (scan.cuh).
#include "scan.cuh"
#include "shimgen_runtime/shim_cuda_ops.h"

using namespace shimgen::rt;
using namespace shimgen::rt::cuda_ops;

extern "C" AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cuda_cumprod(AtenTensorHandle self, int64_t dim, int32_t* dtype,
                                                                   AtenTensorHandle* ret0) {
  return guarded(__func__, [&] {
    const Tensor& t = cuda_arg(self, "self");
    const int32_t out_dtype = dtype != nullptr ? *dtype : integral(t.dtype) ? kInt64 : t.dtype;
    scan_to_new<false>(t, dim, out_dtype, MulOp{}, "cumprod", ret0);
  });
}
