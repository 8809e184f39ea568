// aoti_torch_cuda_logcumsumexp: log(cumsum(exp(self))) along dim without overflow (torch's
// log-add-exp recurrence in float, double for float64). Floating dtypes; a new contiguous tensor.
// One thread per line (scan.cuh).
#include "scan.cuh"
#include "shimgen_runtime/shim_cuda_ops.h"

using namespace shimgen::rt;
using namespace shimgen::rt::cuda_ops;

extern "C" AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cuda_logcumsumexp(AtenTensorHandle self, int64_t dim,
                                                                        AtenTensorHandle* ret0) {
  return guarded(__func__, [&] {
    const Tensor& t = cuda_arg(self, "self");
    scan_to_new<true>(t, dim, t.dtype, LogAddExpOp{}, "logcumsumexp", ret0);
  });
}
