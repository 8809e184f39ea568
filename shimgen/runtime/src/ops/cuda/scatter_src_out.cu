// aoti_torch_cuda_scatter_src_out: out = self, then out[index along dim] = src (Tensor.scatter with
// a tensor src; inductor's fallback on CUDA when src is int64 or bool, which its atomics lack).
// Duplicate targets: the last source element in serial order wins, as on torch's CPU. The kernels
// are in scatter.cu.
#include "scatter.h"
#include "shimgen_runtime/shim_cuda_ops.h"

using namespace shimgen::rt;
using namespace shimgen::rt::cuda_ops;

extern "C" AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cuda_scatter_src_out(AtenTensorHandle out, AtenTensorHandle self,
                                                                           int64_t dim, AtenTensorHandle index,
                                                                           AtenTensorHandle src) {
  return guarded(__func__, [&] {
    SHIMGEN_REQUIRE(src != nullptr, "src is null");
    scatter_device(out, self, dim, index, src, 0.0, ScatterMode::kAssign, true);
  });
}
