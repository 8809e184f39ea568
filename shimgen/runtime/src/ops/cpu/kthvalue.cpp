// aoti_torch_cpu_kthvalue: the k-th smallest value along dim and its index (robust statistics,
// percentile clipping). New contiguous tensors, dim kept as size 1 when keepdim, else removed; NaN
// counts as the largest value; among equal values the index torch's quickselect returns.
#include <algorithm>

#include "cpu_op.h"
#include "shimgen_runtime/shim_cpu_ops.h"

using namespace shimgen::rt;
using namespace shimgen::rt::cpu;

extern "C" AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cpu_kthvalue(AtenTensorHandle self, int64_t k, int64_t dim,
                                                                   int32_t keepdim, AtenTensorHandle* ret0,
                                                                   AtenTensorHandle* ret1) {
  return guarded(__func__, [&] {
    const Tensor& in = cpu_tensor(self, "self");
    require_out(ret0, "ret0");
    require_out(ret1, "ret1");
    const int64_t d = wrap_dim(dim, static_cast<int64_t>(in.sizes.size()), "dim");
    const int64_t n = in.sizes.empty() ? 1 : in.sizes[d];
    SHIMGEN_REQUIRE(k >= 1 && k <= n, "kthvalue(): selected number k out of range for dimension " + std::to_string(d));
    select_kth(in, d, k - 1, keepdim != 0, "kthvalue", /*nan_wins=*/false, ret0, ret1, KthMethod::kHoareQuickSelect);
  });
}
