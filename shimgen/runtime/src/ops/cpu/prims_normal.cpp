// prims::normal (no C shim: served by the proxy executor): what torch.normal(mean_tensor,
// std_tensor) and randn-style noise decompose to when inductor keeps the draw as a fallback. A new
// contiguous tensor of `shape` of normal(mean, std) draws from the runtime's engine (random.cpp).
#include "../proxy_ops.h"
#include "cpu_op.h"

using namespace shimgen::rt;
using namespace shimgen::rt::cpu;

namespace shimgen::rt::proxy_ops {

AtenTensorHandle cpu_normal(const std::vector<int64_t>& shape, double mean, double std, int32_t dtype) {
  SHIMGEN_REQUIRE(std >= 0.0, "normal expects std >= 0.0, but found std " + std::to_string(std));
  auto out = empty_tensor(shape, contiguous_strides_of(shape), dtype, kCPU, -1);
  dispatch_floating(dtype, "normal", [&](auto t) {
    using T = decltype(t);
    auto* dst = reinterpret_cast<T*>(out->data());
    std::lock_guard<std::mutex> lock(random_mutex());
    for (int64_t i = 0, n = out->numel(); i < n; ++i) {
      const double v = mean + std * normal_double(random_engine());
      if constexpr (std::is_same_v<T, double>) dst[i] = v;
      else dst[i] = T(static_cast<float>(v));
    }
  });
  return wrap(std::move(out));
}

}  // namespace shimgen::rt::proxy_ops
