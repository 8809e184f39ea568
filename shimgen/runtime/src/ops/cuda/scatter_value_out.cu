// aoti_torch_cuda_scatter_value_out: out = self, then out[index along dim] = value (Tensor.scatter
// with a scalar, converted to self's dtype as torch does). The kernels are in scatter.cu.
#include "scatter.h"
#include "shimgen_runtime/shim_cuda_ops.h"

using namespace shimgen::rt;
using namespace shimgen::rt::cuda_ops;

extern "C" AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cuda_scatter_value_out(AtenTensorHandle out,
                                                                             AtenTensorHandle self, int64_t dim,
                                                                             AtenTensorHandle index, double value) {
  return guarded(__func__, [&] { scatter_device(out, self, dim, index, nullptr, value, ScatterMode::kAssign, true); });
}
