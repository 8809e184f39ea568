// aten::_sample_dirichlet (no C shim: served by the proxy executor): Dirichlet(alpha = self) draws
// along the last dimension, what torch.distributions' Dirichlet and Beta sample through. As torch's
// CPU kernel: a Gamma(alpha, 1) draw per element (cpu_standard_gamma), each divided by its
// row's sum, then kept within [smallest normal, largest value below 1]. float32 or float64.
#include "../proxy_ops.h"
#include "cpu_op.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>

using namespace shimgen::rt;
using namespace shimgen::rt::cpu;

namespace shimgen::rt::proxy_ops {

AtenTensorHandle cpu_sample_dirichlet(AtenTensorHandle self) {
  const Tensor& in = cpu_tensor(self, "self");
  if (in.dtype != kFloat32 && in.dtype != kFloat64)
    fail(SHIMGEN_RUNTIME_ERROR_UNSUPPORTED, std::string("_sample_dirichlet: \"dirichlet\" not implemented for '") +
                                                scalar_type_name(in.dtype) +
                                                "' (torch's CPU kernel: float32, float64)");
  // The Gamma draws are standard_gamma.cpp's (a new contiguous tensor); each row is then normalised in place.
  AtenTensorHandle drawn = cpu_standard_gamma(self);
  Tensor& out = *unwrap(drawn, "the Gamma draws");
  const int64_t row = in.sizes.empty() ? 1 : in.sizes.back();
  const int64_t count = out.numel();
  auto draw = [&](auto t) {
    using T = decltype(t);
    auto* dst = reinterpret_cast<T*>(out.data());
    const T low = std::numeric_limits<T>::min(), high = std::nextafter(T(1), T(0));
    for (int64_t start = 0; row > 0 && start < count; start += row) {
      T sum = 0;  // in the dtype, as torch's gamma.sum(-1)
      for (int64_t j = 0; j < row; ++j) sum += dst[start + j];
      for (int64_t j = 0; j < row; ++j) dst[start + j] = std::min(high, std::max(low, dst[start + j] / sum));
    }
  };
  if (in.dtype == kFloat32) draw(float{});
  else draw(double{});
  return drawn;
}

}  // namespace shimgen::rt::proxy_ops
