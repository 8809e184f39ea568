// aoti_torch_cpu_bucketize_Tensor: torch.bucketize(self, boundaries) (quantization bins, relative
// position buckets, histogram features): searchsorted of every value in the 1-d boundaries, the same
// rules (searchsorted.cpp); right=1 takes the upper bound.
#include "cpu_op.h"
#include "shimgen_runtime/shim_cpu_ops.h"

using namespace shimgen::rt;
using namespace shimgen::rt::cpu;

extern "C" AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cpu_bucketize_Tensor(AtenTensorHandle self,
                                                                           AtenTensorHandle boundaries,
                                                                           int32_t out_int32, int32_t right,
                                                                           AtenTensorHandle* ret0) {
  return guarded(__func__, [&] {
    const Tensor& values = cpu_tensor(self, "self");
    const Tensor& seq = cpu_tensor(boundaries, "boundaries");
    require_out(ret0, "ret0");
    SHIMGEN_REQUIRE(seq.sizes.size() == 1,
                    "boundaries tensor must be 1 dimension, but got dim(" + std::to_string(seq.sizes.size()) + ")");
    *ret0 = wrap(searchsorted(seq, values, out_int32, right, nullptr, nullptr));
  });
}
