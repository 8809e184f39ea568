// aoti_torch_cpu_polar: abs * (cos(angle) + i sin(angle)), broadcast (rotary embeddings in complex
// form: torch.polar(ones, freqs)). float32 operands give complex64, float64 complex128. New tensor,
// torch's elementwise layout.
#include "elementwise.h"
#include "shimgen_runtime/shim_cpu_ops.h"

using namespace shimgen::rt;
using namespace shimgen::rt::cpu;

extern "C" AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cpu_polar(AtenTensorHandle abs, AtenTensorHandle angle,
                                                                AtenTensorHandle* ret0) {
  return guarded(__func__, [&] {
    const Tensor& r = cpu_tensor(abs, "abs");
    const Tensor& t = cpu_tensor(angle, "angle");
    require_out(ret0, "ret0");
    auto out = elementwise::complex_from_reals(r, t, "polar", "abs", "angle", [](double m, double a) {
      return std::complex<double>(m * std::cos(a), m * std::sin(a));
    });
    *ret0 = wrap(std::move(out));
  });
}
