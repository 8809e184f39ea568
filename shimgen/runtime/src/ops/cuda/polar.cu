// aoti_torch_cuda_polar: abs * (cos(angle) + i sin(angle)), broadcast, on the device
// (complex_elementwise.cuh; rotary embeddings in complex form: torch.polar(ones, freqs)). float32
// operands give complex64, float64 complex128 (elementwise_rules.h), computed in the operands'
// precision as torch's kernel does. A new tensor with torch's elementwise layout.
#include "complex_elementwise.cuh"
#include "shimgen_runtime/shim_cuda_ops.h"

using namespace shimgen::rt;
using namespace shimgen::rt::cuda_ops;

namespace {
struct Polar {
  template <typename R> __device__ void operator()(const R* re, const R*, R& out_re, R& out_im) const {
    out_re = re[0] * cos(re[1]);
    out_im = re[0] * sin(re[1]);
  }
};
}  // namespace

extern "C" AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cuda_polar(AtenTensorHandle abs, AtenTensorHandle angle,
                                                                 AtenTensorHandle* ret0) {
  return guarded(__func__, [&] {
    const complex_ew::Call<2> call({abs, angle}, {"abs", "angle"});
    SHIMGEN_REQUIRE(ret0 != nullptr, "ret0 is null");
    const int32_t type = rules::from_reals_dtype(*call.t[0], *call.t[1], "polar", "abs", "angle");
    complex_ew::launch<true>(call, type, Polar{}, ret0);
  });
}
