// aoti_torch_cuda_scatter_reduce_two_out: scatter_add / scatter_reduce on the device (MoE combine,
// index accumulation; inductor's fallback for scatter with reduce='multiply', for prod/mean/amax/
// amin, and for sums of int64 or bool). out = self, then out[index along dim] <reduce>= src;
// reduce: sum, prod, mean, amax, amin; include_self=0 starts each written position from src alone.
// The kernels are in scatter.cu.
#include "scatter.h"
#include "shimgen_runtime/shim_cuda_ops.h"

using namespace shimgen::rt;
using namespace shimgen::rt::cuda_ops;

extern "C" AOTI_SHIM_EXPORT AOTITorchError
aoti_torch_cuda_scatter_reduce_two_out(AtenTensorHandle out, AtenTensorHandle self, int64_t dim, AtenTensorHandle index,
                                       AtenTensorHandle src, const char* reduce, int32_t include_self) {
  return guarded(__func__, [&] {
    const ScatterMode mode = parse_scatter_reduce(reduce);
    SHIMGEN_REQUIRE(src != nullptr, "src is null");
    scatter_device(out, self, dim, index, src, 0.0, mode, include_self != 0);
  });
}
