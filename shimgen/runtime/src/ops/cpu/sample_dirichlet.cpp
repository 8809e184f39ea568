// aten::_sample_dirichlet (no C shim: served by the proxy executor): Dirichlet(alpha = self) draws
// along the last dimension, what torch.distributions' Dirichlet and Beta sample through. As torch's
// CPU kernel: a Gamma(alpha, 1) draw per element (standard_gamma.cpp's rule), each divided by its
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
                                                scalar_type_name(in.dtype) + "' (torch's CPU kernel: float32, float64)");
  auto out = empty_tensor(in.sizes, contiguous_strides_of(in.sizes), in.dtype, kCPU, -1);
  const int64_t row = in.sizes.empty() ? 1 : in.sizes.back();
  auto draw = [&](auto t) {
    using T = decltype(t);
    const auto* src = reinterpret_cast<const T*>(in.data());
    std::vector<double> alphas;
    for_each_element(in, [&](int64_t at) { alphas.push_back(static_cast<double>(src[at])); });
    auto* dst = reinterpret_cast<T*>(out->data());
    {
      std::lock_guard<std::mutex> lock(random_mutex());
      for (size_t i = 0; i < alphas.size(); ++i) dst[i] = gamma_draw<T>(alphas[i], random_engine());
    }
    const T low = std::numeric_limits<T>::min(), high = std::nextafter(T(1), T(0));
    for (size_t start = 0; row > 0 && start < alphas.size(); start += static_cast<size_t>(row)) {
      T sum = 0;  // in the dtype, as torch's gamma.sum(-1)
      for (int64_t j = 0; j < row; ++j) sum += dst[start + j];
      for (int64_t j = 0; j < row; ++j) dst[start + j] = std::min(high, std::max(low, dst[start + j] / sum));
    }
  };
  if (in.dtype == kFloat32) draw(float{});
  else draw(double{});
  return wrap(std::move(out));
}

}  // namespace shimgen::rt::proxy_ops
