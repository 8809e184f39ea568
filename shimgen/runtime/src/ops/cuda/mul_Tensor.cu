// aoti_torch_cuda_mul_Tensor: self * other, broadcast, on the device (complex_elementwise.cuh).
// Inductor generates real products itself and falls back for complex ones (spectral filters, rotary
// embeddings in complex form): complex64/128 with complex or real float operands, either of them may
// be a 0-d CPU scalar; the result dtype follows torch's promotion (elementwise_rules.h, mul_dtype),
// computed in its precision as torch's kernel does. A new tensor with torch's elementwise layout.
#include "complex_elementwise.cuh"
#include "shimgen_runtime/shim_cuda_ops.h"

using namespace shimgen::rt;
using namespace shimgen::rt::cuda_ops;

namespace {
struct Mul {
  template <typename R> __device__ void operator()(const R* re, const R* im, R& out_re, R& out_im) const {
    out_re = re[0] * re[1] - im[0] * im[1];
    out_im = re[0] * im[1] + im[0] * re[1];
  }
};
}  // namespace

extern "C" AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cuda_mul_Tensor(AtenTensorHandle self, AtenTensorHandle other,
                                                                      AtenTensorHandle* ret0) {
  return guarded(__func__, [&] {
    const complex_ew::Call<2> call({self, other}, {"self", "other"});
    SHIMGEN_REQUIRE(ret0 != nullptr, "ret0 is null");
    const int32_t type = rules::mul_dtype(*call.t[0], *call.t[1]);
    complex_ew::launch<true>(call, type, Mul{}, ret0);
  });
}
