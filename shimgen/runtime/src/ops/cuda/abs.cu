// aoti_torch_cuda_abs: |self| on the device (complex_elementwise.cuh). Inductor generates abs itself
// for real dtypes and falls back for complex ones (spectrum magnitudes after an FFT): complex64/128
// give float32/64 magnitudes (hypot, as torch's kernel), float32/64 their absolute values. A new
// tensor with torch's elementwise layout.
#include "complex_elementwise.cuh"
#include "shimgen_runtime/shim_cuda_ops.h"

using namespace shimgen::rt;
using namespace shimgen::rt::cuda_ops;

namespace {
struct Abs {
  template <typename R> __device__ void operator()(const R* re, const R* im, R& out_re, R& out_im) const {
    out_re = hypot(re[0], im[0]);
    out_im = R(0);
  }
};
}  // namespace

extern "C" AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cuda_abs(AtenTensorHandle self, AtenTensorHandle* ret0) {
  return guarded(__func__, [&] {
    const Tensor& in = cuda_arg(self, "self");
    SHIMGEN_REQUIRE(ret0 != nullptr, "ret0 is null");
    const int32_t type = rules::abs_dtype(in.dtype);
    complex_ew::launch<false>(complex_ew::Call<1>({self}, {"self"}), type, Abs{}, ret0);
  });
}
