// aten::complex (no C shim: served by the proxy executor): torch.complex(real, imag), broadcast;
// float32 operands give complex64, float64 complex128. A new tensor, torch's elementwise layout.
#include "../proxy_ops.h"
#include "elementwise.h"

using namespace shimgen::rt;
using namespace shimgen::rt::cpu;

namespace shimgen::rt::proxy_ops {

AtenTensorHandle cpu_complex(AtenTensorHandle real, AtenTensorHandle imag) {
  const Tensor& re = cpu_tensor(real, "real");
  const Tensor& im = cpu_tensor(imag, "imag");
  auto out = elementwise::complex_from_reals(re, im, "complex", "real", "imag",
                                             [](double r, double i) { return std::complex<double>(r, i); });
  return wrap(std::move(out));
}

}  // namespace shimgen::rt::proxy_ops
