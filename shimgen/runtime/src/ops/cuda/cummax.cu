// aoti_torch_cuda_cummax: running maximum along dim and the int64 index where it was reached
// (torch.cummax; ties take the later index, NaN sticks). New contiguous tensors; one thread per line
// (scan.cuh, extreme_kernel).
#include "scan.cuh"
#include "shimgen_runtime/shim_cuda_ops.h"

using namespace shimgen::rt;
using namespace shimgen::rt::cuda_ops;

extern "C" AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cuda_cummax(AtenTensorHandle self, int64_t dim,
                                                                  AtenTensorHandle* ret0, AtenTensorHandle* ret1) {
  return guarded(__func__, [&] { cumulative_extreme(self, dim, ret0, ret1, /*max=*/true, "cummax"); });
}
