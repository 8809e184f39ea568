// aten::_standard_gamma (no C shim: served by the proxy executor): Gamma(alpha = self, scale 1)
// draws, what torch.distributions' Gamma, Beta, Chi2, StudentT and Dirichlet sample through. A new
// contiguous tensor of self's shape and dtype (float32 or float64, as torch's CPU kernel). As torch,
// every draw is at least the dtype's smallest normal (so a log of it stays finite), an alpha that is
// not positive (or NaN) draws that smallest value, an infinite alpha draws inf.
#include "../proxy_ops.h"
#include "cpu_op.h"

#include <limits>
#include <random>

using namespace shimgen::rt;
using namespace shimgen::rt::cpu;

namespace {

// A Gamma(alpha, 1) draw kept at least T's smallest normal; the caller holds random_mutex().
template <class T> T gamma_draw(double alpha, std::mt19937_64& engine) {
  double v = 0.0;
  if (alpha == std::numeric_limits<double>::infinity()) v = alpha;
  else if (alpha > 0.0) v = std::gamma_distribution<double>(alpha, 1.0)(engine);
  const T drawn = static_cast<T>(v);
  return drawn > std::numeric_limits<T>::min() ? drawn : std::numeric_limits<T>::min();
}

}  // namespace

namespace shimgen::rt::proxy_ops {

AtenTensorHandle cpu_standard_gamma(AtenTensorHandle self) {
  const Tensor& in = cpu_tensor(self, "self");
  if (in.dtype != kFloat32 && in.dtype != kFloat64)
    fail(SHIMGEN_RUNTIME_ERROR_UNSUPPORTED, std::string("_standard_gamma: \"gamma_cpu\" not implemented for '") +
                                                scalar_type_name(in.dtype) +
                                                "' (torch's CPU kernel: float32, float64)");
  auto out = empty_tensor(in.sizes, contiguous_strides_of(in.sizes), in.dtype, kCPU, -1);
  auto draw = [&](auto t) {
    using T = decltype(t);
    const auto* src = reinterpret_cast<const T*>(in.data());
    std::vector<double> alphas;
    for_each_element(in, [&](int64_t at) { alphas.push_back(static_cast<double>(src[at])); });
    auto* dst = reinterpret_cast<T*>(out->data());
    std::lock_guard<std::mutex> lock(random_mutex());
    for (size_t i = 0; i < alphas.size(); ++i) dst[i] = gamma_draw<T>(alphas[i], random_engine());
  };
  if (in.dtype == kFloat32) draw(float{});
  else draw(double{});
  return wrap(std::move(out));
}

}  // namespace shimgen::rt::proxy_ops
